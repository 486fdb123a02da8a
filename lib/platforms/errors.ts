/**
 * Turns whatever a platform call threw (an AWS SDK service exception, a transport error, a body
 * that does not parse, a non-2xx answer of the hosted API) into an UpstreamError that names the
 * platform and says what happened in words a client can act on.
 *
 * What reaches a client: the platform, the kind of failure, the upstream HTTP status and, in
 * `details`, the upstream's own one-line message. Never an SDK error name, a stack, a request id,
 * a raw body or a socket error text.
 *
 *   throttled            throttled  "The <platform> platform is throttling requests"
 *   timed out            timed_out  "The <platform> platform did not answer in time"
 *   credentials refused  failed     "The <platform> platform refused the service's credentials"
 *   upstream 5xx         failed     "The <platform> platform failed (status N)"
 *   unreadable answer    failed     "The <platform> platform returned a response that could not be read"
 *   unreachable          failed     "The <platform> platform could not be reached"
 *   other 4xx            failed     "The <platform> platform rejected the request (status N)"
 *
 * (lib/http/errors.ts answers failed 502, throttled 503, timed_out 504, unless the endpoint's contract
 * reports every platform failure one way.)
 */
import { DomainError, UpstreamError } from '../errors';
import type { PlatformName } from './types';

const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ProvisionedThroughputExceededException',
  'ServiceQuotaExceededException',
  'LimitExceededException',
]);

const CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
  'AccessDenied',
  'AccessDeniedException',
  'NotAuthorized',
  'UnauthorizedOperation',
]);

const TIMEOUTS = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'AbortError']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

const MAX_DETAIL = 300;

/** The upstream's own message, on one line and bounded, for `details`. */
export function upstreamDetail(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  const line = message.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 1)}…` : line;
}

interface SdkLikeError {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  // SageMaker runtime ModelError and Bedrock runtime ModelErrorException: what the model answered.
  OriginalStatusCode?: number;
  originalStatusCode?: number;
  OriginalMessage?: string;
}

const displayName = (platform: PlatformName) => `The ${platform} platform`;

function throttled(platform: PlatformName, upstreamStatus?: number, message?: string): UpstreamError {
  return new UpstreamError(
    platform,
    `${displayName(platform)} is throttling requests`,
    'throttled',
    upstreamDetail(message) ?? 'Retry in a few seconds',
    upstreamStatus,
  );
}

export function timedOut(platform: PlatformName): UpstreamError {
  return new UpstreamError(
    platform,
    `${displayName(platform)} did not answer in time`,
    'timed_out',
    'The call was retried and every attempt timed out',
  );
}

function credentialsRefused(platform: PlatformName, upstreamStatus?: number, message?: string): UpstreamError {
  return new UpstreamError(
    platform,
    `${displayName(platform)} refused the service's credentials${upstreamStatus ? ` (status ${upstreamStatus})` : ''}`,
    'failed',
    upstreamDetail(message),
    upstreamStatus,
  );
}

export function unreadable(platform: PlatformName, upstreamStatus?: number): UpstreamError {
  return new UpstreamError(platform, `${displayName(platform)} returned a response that could not be read`, 'failed', undefined, upstreamStatus);
}

export function unreachable(platform: PlatformName): UpstreamError {
  return new UpstreamError(platform, `${displayName(platform)} could not be reached`, 'failed');
}

/** An answer with an HTTP status and (maybe) a message: the hosted API's errors, and SDK errors with a status. */
export function fromStatus(platform: PlatformName, status: number, message?: string): UpstreamError {
  if (status === 429) return throttled(platform, status, message);
  if (status === 401 || status === 403) return credentialsRefused(platform, status, message);
  if (status === 408 || status === 504) {
    return new UpstreamError(
      platform,
      `${displayName(platform)} did not answer in time (status ${status})`,
      'timed_out',
      upstreamDetail(message),
      status,
    );
  }
  if (status >= 500)
    return new UpstreamError(platform, `${displayName(platform)} failed (status ${status})`, 'failed', upstreamDetail(message), status);
  return new UpstreamError(platform, `${displayName(platform)} rejected the request (status ${status})`, 'failed', upstreamDetail(message), status);
}

/**
 * Maps anything a platform call threw. Domain errors (ours, already mapped) pass through unchanged, so
 * a function may wrap calls that themselves map.
 */
export function toUpstreamError(platform: PlatformName, err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const e = (err ?? {}) as SdkLikeError;
  const name = e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code ?? '';

  if (TIMEOUTS.has(name) || TIMEOUT_CODES.has(code)) return timedOut(platform);
  if (THROTTLING.has(name)) return throttled(platform, status, e.message);
  if (CREDENTIALS.has(name)) return credentialsRefused(platform, status, e.message);
  if (name === 'CredentialsProviderError') {
    return new UpstreamError(platform, `No credentials are available to call the ${platform} platform`, 'failed');
  }
  // The model behind the platform failed: report what the model answered, not the wrapper.
  if (name === 'ModelError' || name === 'ModelErrorException') {
    const original = e.OriginalStatusCode ?? e.originalStatusCode;
    return new UpstreamError(
      platform,
      `The model on the ${platform} platform failed${original ? ` (status ${original})` : ''}`,
      'failed',
      upstreamDetail(e.OriginalMessage ?? 'The model container answered with an error'),
      original ?? status,
    );
  }
  if (name === 'ModelNotReadyException') {
    return new UpstreamError(platform, `The model on the ${platform} platform is not ready yet`, 'not_ready', upstreamDetail(e.message), status);
  }
  if (name === 'ModelTimeoutException') return timedOut(platform);
  // A 2xx answer whose body did not parse: the SDK reports the JSON parser's error.
  if (name === 'SyntaxError' || /Deserialization error/i.test(e.message ?? '')) return unreadable(platform, status);
  if (UNREACHABLE_CODES.has(code)) return unreachable(platform);
  if (typeof status === 'number' && status >= 400) return fromStatus(platform, status, e.message);
  if (e.$fault === 'server') return new UpstreamError(platform, `${displayName(platform)} failed`, 'failed');
  if (e.$fault === 'client') return new UpstreamError(platform, `${displayName(platform)} rejected the request`, 'failed', upstreamDetail(e.message));
  return new UpstreamError(platform, `${displayName(platform)} call failed`, 'failed');
}

/** Runs one platform call and maps its failure. */
export async function guard<T>(platform: PlatformName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toUpstreamError(platform, err);
  }
}

/** The SDK error name of a raw failure, for the few "expected" errors adapters handle themselves. */
export function errorName(err: unknown): string {
  return (err as { name?: string } | undefined)?.name ?? '';
}

export function errorMessage(err: unknown): string {
  return (err as { message?: string } | undefined)?.message ?? '';
}
