/**
 * What can go wrong, in the domain's words. lib/ throws these; it never chooses an HTTP status.
 * lib/http/errors.ts is the one place that turns them (and the data layer's DataError) into a status
 * and a body in the route's dialect (the spec's, OpenAI's, Anthropic's).
 *
 * `message` is written for clients and is returned as it is; `details` adds what a client can act on.
 * `code` and `param` name the error for the dialects that carry them (OpenAI's `code` and `param`);
 * the others ignore them.
 */

export type ErrorKind =
  /** The request cannot be carried out as sent (a field, a value, a combination). */
  | 'invalid'
  /** No caller, or a credential that is not (or no longer) valid. */
  | 'unauthenticated'
  /** A known caller who may not do this. */
  | 'forbidden'
  | 'not_found'
  /** The state of the thing does not allow it now (a name taken, an operation under way). */
  | 'conflict'
  /** Too many requests for a limit (login throttling, rate limits). */
  | 'rate_limited'
  /** A budget cannot cover the call. */
  | 'budget_exceeded'
  /** The service cannot do it now; worth retrying later. */
  | 'unavailable'
  /** The model asked for cannot answer now: its resource is not InService (or its endpoint is gone). */
  | 'not_in_service'
  /** A model or platform failed or could not be used (UpstreamError says how). */
  | 'upstream';

export interface ErrorOptions {
  details?: string;
  /** A machine-readable name (OpenAI's `code`): invalid_api_key, model_not_found, budget_exceeded… */
  code?: string;
  /** The request field at fault (OpenAI's `param`). */
  param?: string;
  /** When a retry may succeed, in seconds (Retry-After). */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  override name = 'DomainError';
  readonly details?: string;
  readonly code?: string;
  readonly param?: string;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(message);
    this.details = options.details;
    this.code = options.code;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** `options` may be the details text alone, the common case. */
const opts = (options?: string | ErrorOptions): ErrorOptions => (typeof options === 'string' ? { details: options } : (options ?? {}));

export class BadRequest extends DomainError {
  constructor(message: string, options?: string | ErrorOptions) {
    super('invalid', message, opts(options));
  }
}

export class Unauthorized extends DomainError {
  constructor(message = 'Authentication required', options?: string | ErrorOptions) {
    super('unauthenticated', message, opts(options));
  }
}

export class Forbidden extends DomainError {
  constructor(message = 'Admin privileges required', options?: string | ErrorOptions) {
    super('forbidden', message, opts(options));
  }
}

export class NotFound extends DomainError {
  constructor(message: string, options?: string | ErrorOptions) {
    super('not_found', message, opts(options));
  }
}

export class Conflict extends DomainError {
  constructor(message: string, options?: string | ErrorOptions) {
    super('conflict', message, opts(options));
  }
}

export class TooManyRequests extends DomainError {
  constructor(message: string, retryAfterSeconds: number, options: Omit<ErrorOptions, 'retryAfterSeconds'> = {}) {
    super('rate_limited', message, { ...options, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

export class BudgetExceeded extends DomainError {
  constructor(message: string) {
    super('budget_exceeded', message, { code: 'budget_exceeded' });
  }
}

export class ServiceUnavailable extends DomainError {
  constructor(message: string, retryAfterSeconds = 5, options: Omit<ErrorOptions, 'retryAfterSeconds'> = {}) {
    super('unavailable', message, { ...options, retryAfterSeconds });
  }
}

/**
 * A model call refused before the model is asked (or found out after it failed): the resource is not
 * InService, or (`gone`) its endpoint no longer exists on the platform. One check for every metered
 * call (lib/calls); the spec's routes answer 409 (404 when gone), OpenAI's 503 with Retry-After.
 */
export class NotInService extends DomainError {
  constructor(
    message: string,
    readonly gone: boolean,
    details?: string,
  ) {
    super('not_in_service', message, { details, code: 'model_not_available', param: 'model', retryAfterSeconds: 30 });
  }
}

/**
 * How a platform call went wrong. Each has its usual answer (lib/http/errors.ts): `failed` 502,
 * `throttled` 503, `timed_out` 504, `not_ready` 503, `missing` (the platform has no such endpoint or
 * model) 404. An endpoint whose contract reports every platform failure one way (the spec's chat: 500)
 * says so in its options, not here.
 */
export type UpstreamFailure = 'failed' | 'throttled' | 'timed_out' | 'not_ready' | 'missing';

export class UpstreamError extends DomainError {
  override name = 'UpstreamError';
  constructor(
    /** The platform that failed (or a service the platforms depend on, such as 'pricing'). */
    readonly platform: string,
    message: string,
    readonly failure: UpstreamFailure = 'failed',
    details?: string,
    /** The status the platform answered, when it answered one. */
    readonly upstreamStatus?: number,
  ) {
    super('upstream', message, { details });
  }

  /** The same failure told another way (a deploy's "Deployment of endpoint x failed: …"). */
  retold(message: string): UpstreamError {
    return new UpstreamError(this.platform, message, this.failure, this.details, this.upstreamStatus);
  }
}

export const isDomainError = (err: unknown, kind?: ErrorKind): err is DomainError =>
  err instanceof DomainError && (kind === undefined || err.kind === kind);
