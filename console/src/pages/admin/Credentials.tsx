import { api, unwrap } from '../../api/client';
import { useQuery } from '../../api/hooks';
import { CopyButton, ErrorText, Facts, PageTitle, Spinner } from '../../components/ui';

/** Masked platform credentials and their example calls; reading them is audited by the service. */
export default function Credentials() {
  const cloud = useQuery(() => unwrap(api.GET('/api/auth/aws-credentials')), []);
  const hosted = useQuery(() => unwrap(api.GET('/api/auth/nvidia-credentials')), []);
  return (
    <section>
      <PageTitle>Credentials</PageTitle>
      <p className="lead">
        Secrets are masked to their last four characters. The example calls read the real keys from your environment; every view is recorded in the
        audit log.
      </p>
      <section className="panel" aria-labelledby="cloud-creds">
        <h2 id="cloud-creds">Managed and dedicated platforms</h2>
        {cloud.loading ? <Spinner label="Loading…" /> : null}
        <ErrorText error={cloud.error} />
        {cloud.data ? (
          <>
            <Facts
              items={[
                ['Configured', cloud.data.credentials.configured ? 'yes' : 'no'],
                ['Region', cloud.data.credentials.region],
                ['Access key id', <span className="mono">{cloud.data.credentials.accessKeyId ?? 'not set (the IAM role is used)'}</span>],
                ['Secret access key', <span className="mono">{cloud.data.credentials.secretAccessKey ?? 'not set'}</span>],
                ['Endpoint', <span className="mono small">{cloud.data.credentials.endpoint}</span>],
                ['Runtime endpoint', <span className="mono small">{cloud.data.credentials.runtimeEndpoint}</span>],
                ['Signing', cloud.data.credentials.authMethod],
              ]}
            />
            <p className="hint">{cloud.data.credentials.note}</p>
            <Example title="curl" code={cloud.data.credentials.curlExample} />
            <Example title="Node.js" code={cloud.data.credentials.nodeExample} />
            <Example title="Python" code={cloud.data.credentials.pythonExample} />
          </>
        ) : null}
      </section>
      <section className="panel" aria-labelledby="hosted-creds">
        <h2 id="hosted-creds">Hosted platform</h2>
        {hosted.loading ? <Spinner label="Loading…" /> : null}
        <ErrorText error={hosted.error} />
        {hosted.data ? (
          <>
            <Facts
              items={[
                ['Configured', hosted.data.credentials.configured ? 'yes' : 'no'],
                ['API key', <span className="mono">{hosted.data.credentials.apiKey ?? 'not set'}</span>],
                ['Base URL', <span className="mono small">{hosted.data.credentials.baseUrl}</span>],
                ['Endpoint', <span className="mono small">{hosted.data.credentials.endpoint}</span>],
              ]}
            />
            <p className="hint">{hosted.data.credentials.note}</p>
            <Example title="curl" code={hosted.data.credentials.curlExample} />
            <Example title="Node.js" code={hosted.data.credentials.nodeExample} />
            <Example title="Python" code={hosted.data.credentials.pythonExample} />
          </>
        ) : null}
      </section>
    </section>
  );
}

function Example({ title, code }: { title: string; code: string }) {
  return (
    <div className="example">
      <div className="example-head">
        <h3>{title}</h3>
        <CopyButton text={code} label={`Copy the ${title} example`} />
      </div>
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
