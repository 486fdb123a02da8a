import { Link, useSearch } from 'wouter';
import { api, unwrap } from '../api/client';
import { useQuery } from '../api/hooks';
import { getSession, isAdmin } from '../api/session';
import { ErrorText, Facts, PageTitle, Spinner } from '../components/ui';
import { int, lifecycle, list, usd } from '../format';

export default function ModelDetail() {
  const params = new URLSearchParams(useSearch());
  const platform = params.get('platform') === 'hosted' ? 'hosted' : 'managed';
  const modelId = params.get('id') ?? '';
  const q = useQuery(
    () =>
      unwrap(
        platform === 'hosted'
          ? api.GET('/api/hosted/model-info/{modelId}', { params: { path: { modelId } } })
          : api.GET('/api/managed/model-info/{modelId}', { params: { path: { modelId } } }),
      ),
    [platform, modelId],
  );
  const admin = isAdmin(getSession()?.user.role);
  return (
    <section>
      <PageTitle
        actions={
          admin ? (
            <Link className="button primary" href={`/deploy/${platform}?modelId=${encodeURIComponent(modelId)}`}>
              Deploy this model
            </Link>
          ) : undefined
        }
      >
        {modelId}
      </PageTitle>
      <p>
        <Link href={`/models/${platform}`}>← All {platform} models</Link>
      </p>
      {q.loading ? <Spinner label="Loading the model…" /> : null}
      <ErrorText error={q.error} />
      {q.data ? (
        <div className="grid">
          <section className="panel">
            <h2>Model</h2>
            <Facts
              items={[
                ['Name', q.data.modelInfo.modelName],
                ['Provider', q.data.modelInfo.providerName],
                ['Input modalities', list(q.data.modelInfo.inputModalities)],
                ['Output modalities', list(q.data.modelInfo.outputModalities)],
                ['Streaming', q.data.modelInfo.responseStreamingSupported ? 'Supported' : 'Not supported'],
                ['Inference', list(q.data.modelInfo.inferenceTypesSupported)],
                ['Customisation', list(q.data.modelInfo.customizationsSupported)],
                ['Lifecycle', lifecycle(q.data.modelInfo.modelLifecycle)],
                ['ARN', <span className="mono small">{q.data.modelInfo.modelArn}</span>],
              ]}
            />
          </section>
          <section className="panel">
            <h2>Pricing</h2>
            <Facts
              items={[
                ['Input', q.data.modelInfo.pricing.inputTokens],
                ['Output', q.data.modelInfo.pricing.outputTokens],
              ]}
            />
            <h2>Usage through this service</h2>
            <Facts
              items={[
                ['Invocations', int(q.data.usage.totalInvocations)],
                ['Input tokens', int(q.data.usage.totalInputTokens)],
                ['Output tokens', int(q.data.usage.totalOutputTokens)],
                ['Estimated cost', usd(q.data.usage.estimatedCost)],
              ]}
            />
          </section>
          <section className="panel wide">
            <h2>System prompt</h2>
            <pre className="wrap">{q.data.systemPrompt || '—'}</pre>
          </section>
        </div>
      ) : null}
    </section>
  );
}
