/**
 * SSM Parameter Store, read the way the functions read their secrets: the token signing secret
 * (lib/auth/secret.ts), single sign-on's client secret, the hosted API key and the platforms' secret
 * access key. Each is a SecureString whose *name* is in the function's environment; its value is read
 * once per cold start and cached, never written to the template or the function's configuration.
 *
 * The read is one GetParameter request signed with the SDK's own SigV4 signer and sent with fetch,
 * not @aws-sdk/client-ssm: that client adds 77 KB (minified) to every function's bundle for this one
 * call (docs/benchmarks.md, section 1), while the signer is already in every bundle through the
 * DynamoDB client. Credentials are the function's role as Lambda puts it in the environment;
 * SERVICE_CLOUD_ENDPOINT (the local emulator, whose SSM serves the parameters under `npm start`)
 * redirects the call the way it redirects the platform clients.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { config, type SecretSetting } from '../../core/config';

/**
 * A secret setting's value, as a function to call when it is needed: the value itself where it was
 * given (local runs and tests), else its SSM parameter, read on the first call of the container and
 * cached. A failed read is not cached (a transient SSM failure must not poison the container); its
 * error names the parameter and `what` it holds.
 */
export function secretReader(setting: SecretSetting, what: string): () => Promise<string> {
  if (setting.kind === 'value') {
    const value = Promise.resolve(setting.value);
    return () => value;
  }
  let pending: Promise<string> | undefined;
  return () =>
    (pending ??= readParameter(setting.parameterName, parameterStoreFromEnv()).catch((err: unknown) => {
      pending = undefined;
      if (err instanceof ParameterStoreError) {
        throw new ParameterStoreError(err.code, `${what} (SSM parameter ${setting.parameterName}): ${err.message}`, err.retryable);
      }
      throw err;
    }));
}

export interface ParameterStore {
  region: string;
  /** https://ssm.<region>.amazonaws.com unless overridden. */
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Per attempt. */
  timeoutMs: number;
  attempts: number;
}

/** Where and as whom the function reads its parameters: the Lambda environment (or the emulator). */
export function parameterStoreFromEnv(env: NodeJS.ProcessEnv = process.env): ParameterStore {
  const region = env.AWS_REGION || config.cloud.region;
  // The platforms' own access key, where one is configured as a value (local runs), signs for the
  // emulator; a deployed function signs as its role, whose credentials Lambda puts in the environment.
  const own = config.cloud.secretAccessKey?.kind === 'value' ? config.cloud.secretAccessKey.value : undefined;
  const accessKeyId = env.AWS_ACCESS_KEY_ID || config.cloud.accessKeyId;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY || own;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('No AWS credentials in the environment to read secrets from SSM');
  }
  return {
    region,
    endpoint: config.cloud.endpoint ?? `https://ssm.${region}.amazonaws.com`,
    credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_ACCESS_KEY_ID ? env.AWS_SESSION_TOKEN || undefined : undefined },
    timeoutMs: 3000,
    attempts: 3,
  };
}

export class ParameterStoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ParameterStoreError';
  }
}

const RETRYABLE_CODES = new Set(['ThrottlingException', 'InternalServerError', 'ServiceUnavailable']);

/**
 * SSM GetParameter with decryption (awsJson1.1): the parameter's value. Throttling, 5xx, timeouts and
 * network failures are retried with a short backoff, `attempts` times in all; anything else
 * (ParameterNotFound, AccessDeniedException, …) fails at once with the service's error code.
 */
export async function readParameter(name: string, store: ParameterStore): Promise<string> {
  const url = new URL(store.endpoint);
  const signer = new SignatureV4({ service: 'ssm', region: store.region, credentials: store.credentials, sha256: Sha256 });
  const body = JSON.stringify({ Name: name, WithDecryption: true });
  let lastError: unknown;
  for (let attempt = 1; attempt <= store.attempts; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (attempt - 2)));
    try {
      return await getParameterOnce(url, signer, body, store.timeoutMs);
    } catch (err) {
      lastError = err;
      if (err instanceof ParameterStoreError && !err.retryable) throw err;
    }
  }
  throw lastError;
}

async function getParameterOnce(url: URL, signer: SignatureV4, body: string, timeoutMs: number): Promise<string> {
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname || '/',
    query: {},
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AmazonSSM.GetParameter',
    },
    body,
  });
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ParameterStoreError('NetworkError', `SSM did not answer: ${(err as Error).message}`, true);
  }
  const text = await response.text();
  let parsed: { __type?: string; message?: string; Message?: string; Parameter?: { Value?: unknown } };
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    throw new ParameterStoreError('Unreadable', `SSM returned an unreadable response (status ${response.status})`, response.status >= 500);
  }
  if (!response.ok) {
    // "com.amazonaws.ssm#ParameterNotFound" or "ParameterNotFound"
    const code = (response.headers.get('x-amzn-errortype') ?? parsed.__type ?? `Http${response.status}`).split(':')[0]?.split('#').pop() ?? 'Unknown';
    const retryable = response.status >= 500 || RETRYABLE_CODES.has(code);
    throw new ParameterStoreError(
      code,
      `SSM GetParameter failed: ${code}${parsed.message || parsed.Message ? ` (${parsed.message ?? parsed.Message})` : ''}`,
      retryable,
    );
  }
  const value = parsed.Parameter?.Value;
  if (typeof value !== 'string' || !value) throw new ParameterStoreError('NoValue', 'SSM parameter has no value', false);
  return value;
}
