/**
 * How every platform AWS client is built: region, credentials, endpoint override, bounded retries
 * and per-attempt timeouts. This module imports no SDK client on purpose: each platform module
 * constructs only the clients it calls, so a function bundles only those.
 *
 * - Credentials: SERVICE_CLOUD_ACCESS_KEY_ID + SERVICE_CLOUD_SECRET_ACCESS_KEY when both are set
 *   (deployed stages keep the secret in SSM, SERVICE_CLOUD_SECRET_ACCESS_KEY_PARAMETER: the SDK asks
 *   for it when it signs its first request, and it is read once per container), otherwise nothing is
 *   passed and the SDK's default chain applies (the Lambda role in AWS).
 * - Endpoint: SERVICE_CLOUD_ENDPOINT (the local emulator) for every client, else the SDK's own.
 * - Retries: the SDK's standard mode (exponential backoff with jitter, throttling-aware), bounded by
 *   UPSTREAM_MAX_ATTEMPTS.
 * - Timeouts: UPSTREAM_TIMEOUT_MS per attempt. The HTTP/1.1 handler only *warns* when a request
 *   exceeds requestTimeout unless throwOnRequestTimeout is set, so it is set; the HTTP/2 handler
 *   (Bedrock runtime) fails a stream that is idle for requestTimeout.
 */
import { config } from '../../core/config';
import { secretReader } from '../aws/parameter-store';

type AccessKey = { accessKeyId: string; secretAccessKey: string };

export interface AwsPlatformOptions {
  region: string;
  endpoint?: string;
  /** A key, or a provider of one (the SDK calls it before it signs). */
  credentials?: AccessKey | (() => Promise<AccessKey>);
  timeoutMs: number;
  maxAttempts: number;
}

/** The configured access key, if any: one reader per container, so SSM is asked once. */
const configuredKey = (() => {
  const { accessKeyId, secretAccessKey } = config.cloud;
  if (!accessKeyId || !secretAccessKey) return undefined;
  if (secretAccessKey.kind === 'value') return { accessKeyId, secretAccessKey: secretAccessKey.value };
  const read = secretReader(secretAccessKey, 'the platform secret access key');
  return async (): Promise<AccessKey> => ({ accessKeyId, secretAccessKey: await read() });
})();

/** The options the service runs with, from core/config. */
function awsOptionsFromConfig(): AwsPlatformOptions {
  const { region, endpoint } = config.cloud;
  return {
    region,
    endpoint,
    credentials: configuredKey,
    timeoutMs: config.upstream.timeoutMs,
    maxAttempts: config.upstream.maxAttempts,
  };
}

export function resolveAwsOptions(overrides: Partial<AwsPlatformOptions> = {}): AwsPlatformOptions {
  return { ...awsOptionsFromConfig(), ...overrides };
}

/** What every platform client takes alike; only the request handler differs by HTTP version. */
function baseClientConfig(o: AwsPlatformOptions) {
  return { region: o.region, endpoint: o.endpoint, credentials: o.credentials, maxAttempts: o.maxAttempts, retryMode: 'standard' };
}

/** Constructor input for an SDK client that speaks HTTP/1.1 (all of them except the Bedrock runtime). */
export function http1ClientConfig(o: AwsPlatformOptions) {
  return {
    ...baseClientConfig(o),
    requestHandler: {
      // Connecting gets at most 3 s of the budget: a host that does not accept is not going to.
      connectionTimeout: Math.min(o.timeoutMs, 3000),
      requestTimeout: o.timeoutMs,
      throwOnRequestTimeout: true,
    },
  };
}

/** Constructor input for the Bedrock runtime client, whose default handler is HTTP/2. */
export function http2ClientConfig(o: AwsPlatformOptions) {
  return {
    ...baseClientConfig(o),
    // One stream per session, as the SDK's own default for this client; requestTimeout fails a
    // stream that has been idle that long.
    requestHandler: { requestTimeout: o.timeoutMs, disableConcurrentStreams: true },
  };
}
