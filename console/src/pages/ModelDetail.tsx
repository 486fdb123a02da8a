import { Link, useSearch } from 'wouter';
import { api, unwrap } from '../api/client';
import { useQuery } from '../api/hooks';
import { getSession, isAdmin } from '../api/session';
import { ErrorText, Facts, PageTitle, Spinner } from '../components/ui';
import { int, lifecycle, list, usd } from '../format';

/** The platforms whose catalogue describes one model (both answer ModelInfo), by their model-info routes. */
const MODEL_INFO = {
  managed: (modelId: string) => unwrap(api.GET('/api/managed/model-info/{modelId}', { params: { path: { modelId } } })),
  hosted: (modelId: string) => unwrap(api.GET('/api/hosted/model-info/{modelId}', { params: { path: { modelId } } })),
};
const described = (value: string | null): value is keyof typeof MODEL_INFO => value !== null && Object.hasOwn(MODEL_INFO, value);

export default function ModelDetail() {
  const params = new URLSearchParams(useSearch());
  const requested = params.get('platform');
  const platform = described(requested) ? requested : undefined;
  const modelId = params.get('id') ?? '';
  const q = useQuery(
    // Only the catalogues that describe one model have this page; a link naming another is refused in words.
    () =>
      platform
        ? MODEL_INFO[platform](modelId)
        : Promise.reject(new Error(`No catalogue of the ${requested ?? 'unnamed'} platform describes one model`)),
    [platform, modelId],
  );
  const admin = isAdmin(getSession()?.user.role);
  return (
    <section>
      <PageTitle
        actions={
          admin && platform ? (
            <Link className="button primary" href={`/deploy/${platform}?modelId=${encodeURIComponent(modelId)}`}>
              Deploy this model
            </Link>
          ) : undefined
        }
      >
        {modelId}
      </PageTitle>
      <p>
        <Link href={`/models/${platform ?? ''}`}>← All {platform ?? ''} models</Link>
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
