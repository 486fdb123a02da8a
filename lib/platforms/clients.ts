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
 *   UPSTREAM_MAX_ATTEMPTS; but a call that another target stands behind (a route's attempt with a
 *   target left) goes through a twin client that does not retry throttling (`PlatformClient`).
 * - Timeouts: UPSTREAM_TIMEOUT_MS per attempt. The HTTP/1.1 handler only *warns* when a request
 *   exceeds requestTimeout unless throwOnRequestTimeout is set, so it is set; the HTTP/2 handler
 *   (Bedrock runtime) fails a stream that is idle for requestTimeout.
 */
import { StandardRetryStrategy } from '@smithy/core/retry';
import type { RetryErrorInfo, RetryStrategyV2, RetryToken, StandardRetryToken } from '@smithy/types';
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
  /** `fail`: a throttled attempt is not retried (the client of a call another target stands behind). Default `retry`. */
  throttling?: 'retry' | 'fail';
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

/**
 * The SDK's standard retries but for throttling, which fails at once: the strategy of a call that
 * another target stands behind. Bedrock throttles per model and per region, so the same model asked
 * again a moment later is the likeliest to be throttled again, and the backoff between the two
 * attempts is time the caller waits for nothing while the route's next target is free. A 5xx or a
 * dropped connection is often a one-off, and is still retried.
 */
class NoRetryOnThrottling implements RetryStrategyV2 {
  readonly mode = 'standard';
  private readonly standard: StandardRetryStrategy;

  constructor(maxAttempts: number) {
    this.standard = new StandardRetryStrategy(maxAttempts);
  }

  acquireInitialRetryToken(scope: string): Promise<StandardRetryToken> {
    return this.standard.acquireInitialRetryToken(scope);
  }

  async refreshRetryTokenForRetry(token: StandardRetryToken, info: RetryErrorInfo): Promise<RetryToken> {
    // The SDK's retry middleware answers a refusal here with the attempt's own error.
    if (info.errorType === 'THROTTLING') throw info.error ?? new Error('Throttled');
    return this.standard.refreshRetryTokenForRetry(token, info);
  }

  recordSuccess(token: StandardRetryToken): void {
    this.standard.recordSuccess(token);
  }
}

/** What every platform client takes alike; only the request handler differs by HTTP version. */
function baseClientConfig(o: AwsPlatformOptions) {
  const retry =
    o.throttling === 'fail' ? { retryStrategy: new NoRetryOnThrottling(o.maxAttempts) } : { maxAttempts: o.maxAttempts, retryMode: 'standard' };
  return { region: o.region, endpoint: o.endpoint, credentials: o.credentials, ...retry };
}

/**
 * A platform client as each call needs it: the standard one, or, for a call with `failFastOnThrottling`
 * (a route's attempt with another target left, lib/calls/attempts.ts), its twin that does not retry
 * throttling. The twin is built on its first use and kept, like the standard one: clients are built
 * once per container, never per call.
 */
export class PlatformClient<T extends { destroy(): void }> {
  private readonly standard: T;
  private failFast?: T;

  constructor(private readonly build: (throttling: 'retry' | 'fail') => T) {
    this.standard = build('retry');
  }

  for(call: { failFastOnThrottling?: boolean }): T {
    if (!call.failFastOnThrottling) return this.standard;
    return (this.failFast ??= this.build('fail'));
  }

  destroy(): void {
    this.standard.destroy();
    this.failFast?.destroy();
  }
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
