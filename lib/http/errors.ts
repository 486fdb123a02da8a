/**
 * The one mapping of errors to HTTP: the domain's errors (lib/errors.ts) and the data layer's
 * (tables/errors.ts) become a status, headers and the client-safe text a body is built from
 * (lib/http/middlewares/error-responder.ts writes the body in the route's dialect). Only lib/http
 * and the wire dialects know statuses; domain code says what went wrong.
 *
 * A few errors exist only at the HTTP layer (a body too large, a wrong Content-Type): they are
 * HttpErrors from the start.
 */
import { DataError } from '../../tables/errors';
import { DomainError, NotInService, UpstreamError, type ErrorKind, type UpstreamFailure } from '../errors';

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: string,
    readonly headers: Record<string, string> = {},
    /** OpenAI's `code` and `param`, for the dialects that carry them. */
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(limitBytes: number) {
    super(413, 'Request body too large', `The limit is ${limitBytes} bytes`);
  }
}

/** A request body under any Content-Type but application/json (charset=utf-8 optional), or none. */
export class UnsupportedMediaType extends HttpError {
  constructor(received: string) {
    super(
      415,
      'Content-Type must be application/json',
      `Received ${received ? `"${received.slice(0, 100)}"` : 'no Content-Type'}; send application/json or application/json; charset=utf-8`,
    );
  }
}

/**
 * @middy/http-json-body-parser's error for a body that is not JSON: it says 415, but the media type
 * was right (lib/http/middlewares/json-body.ts checks it first); the content is what is wrong, a 400.
 */
const isMalformedJson = (err: unknown): boolean =>
  err instanceof Error && (err.cause as { package?: string } | undefined)?.package === '@middy/http-json-body-parser';

/** How a route reports what its domain code throws. */
export interface ErrorRoute {
  /**
   * The route's contract for a platform's failure, whatever the failure: the spec's chat and dedicated
   * deploy answer 500, the catalogues 502. Unset: each failure its own status (UPSTREAM_STATUS).
   */
  platformFailures?: 500 | 502;
  /** OpenAI's dialect: a timeout is 504, every other platform failure 502 (what its clients retry on). */
  openAi?: boolean;
  /**
   * The /v1 dialects (OpenAI's and Anthropic's): a platform that throttles is the caller's 429
   * rate_limit_exceeded with Retry-After, which their clients' retry logic waits on, not a failure.
   */
  gateway?: boolean;
}

/** How long a caller told of a platform's throttling waits, when nothing says better (a route's cooldown does). */
const THROTTLED_RETRY_AFTER_SECONDS = 5;

const STATUS: Record<Exclude<ErrorKind, 'upstream' | 'not_in_service'>, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  budget_exceeded: 429,
  unavailable: 503,
};

const UPSTREAM_STATUS: Record<UpstreamFailure, number> = { failed: 502, throttled: 503, timed_out: 504, not_ready: 503, missing: 404 };

function upstreamStatus(err: UpstreamError, route: ErrorRoute): number {
  if (route.platformFailures) return route.platformFailures;
  if (route.openAi) return err.failure === 'timed_out' ? 504 : 502;
  return UPSTREAM_STATUS[err.failure];
}

/**
 * Middy ends an invocation a moment before the function's own timeout (its timeoutEarlyResponse
 * throws this), so the client gets an answer instead of the platform's bare timeout.
 */
const isFunctionTimeout = (err: unknown): boolean =>
  err instanceof Error && err.name === 'TimeoutError' && (err.cause as { package?: string } | undefined)?.package === '@middy/core';

/**
 * The HTTP form of an error, or undefined for anything that is neither ours nor the data layer's (an
 * internal failure: a generic 500). A missing item is 404, a forged cursor 400, an unavailable
 * database 503 with Retry-After, and a taken name, a stale write or a broken table rule 409.
 */
export function toHttpError(err: unknown, route: ErrorRoute = {}): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (isMalformedJson(err)) return new HttpError(400, 'Malformed JSON in request body');
  if (isFunctionTimeout(err)) {
    return new HttpError(
      504,
      "The request did not finish within the function's time limit",
      'The service is slow to answer right now; retry shortly (a chat message may have been stored meanwhile: read the thread before sending it again)',
    );
  }
  if (err instanceof NotInService) {
    // OpenAI's clients retry a 503 (after Retry-After); the spec's chat answers a conflict, or 404 when the endpoint is gone.
    if (route.openAi) return new HttpError(503, err.message, err.details, { 'Retry-After': String(err.retryAfterSeconds) }, err.code, err.param);
    return new HttpError(err.gone ? 404 : 409, err.message, err.details);
  }
  if (err instanceof UpstreamError && err.failure === 'throttled' && route.gateway && !route.platformFailures) {
    const retryAfter = String(err.retryAfterSeconds ?? THROTTLED_RETRY_AFTER_SECONDS);
    return new HttpError(429, err.message, err.details, { 'Retry-After': retryAfter }, 'rate_limit_exceeded');
  }
  if (err instanceof DomainError) {
    const status = err instanceof UpstreamError ? upstreamStatus(err, route) : STATUS[err.kind as keyof typeof STATUS];
    const headers: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
    return new HttpError(status, err.message, err.details, headers, err.code, err.param);
  }
  if (err instanceof DataError) {
    const { kind } = err;
    const status = kind === 'ItemNotFound' ? 404 : kind === 'InvalidCursor' ? 400 : kind === 'DatabaseUnavailable' ? 503 : 409;
    return new HttpError(status, err.message, err.details, status === 503 ? { 'Retry-After': '5' } : undefined);
  }
  return undefined;
}
