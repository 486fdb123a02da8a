/**
 * The one error family of the service. Domain code throws these; lib/http/middlewares/error-responder.ts
 * is the one place that turns them (and the data layer's errors, tables/errors.ts, and anything else)
 * into the spec's section 7 bodies.
 *
 * `message` is written for clients: it is returned as is. Anything that is neither an HttpError nor a
 * data error is an internal failure and only ever reaches a client as a generic 500.
 */
import { DataError } from '../../tables/errors';

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class BadRequest extends HttpError {
  constructor(message: string, details?: string) {
    super(400, message, details);
  }
}

export class Unauthorized extends HttpError {
  constructor(message = 'Authentication required', details?: string) {
    super(401, message, details);
  }
}

export class Forbidden extends HttpError {
  constructor(message = 'Admin privileges required', details?: string) {
    super(403, message, details);
  }
}

export class NotFound extends HttpError {
  constructor(message: string, details?: string) {
    super(404, message, details);
  }
}

export class Conflict extends HttpError {
  constructor(message: string, details?: string) {
    super(409, message, details);
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

export class TooManyRequests extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** A platform answered with an error or did not answer. The status says how the endpoint reports it. */
export class UpstreamError extends HttpError {
  override name = 'UpstreamError';
  constructor(
    readonly platform: string,
    message: string,
    statusCode = 502,
    details?: string,
    readonly upstreamStatus?: number,
  ) {
    super(statusCode, message, details);
  }
}

/**
 * An error that names itself for OpenAI's error body (`code`, `param`): the gateway's refusals
 * (invalid_api_key, model_not_found, budget_exceeded). Other shapes ignore both.
 */
export class CodedError extends HttpError {
  constructor(
    statusCode: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
    headers?: Record<string, string>,
  ) {
    super(statusCode, message, undefined, headers);
  }
}

export class ServiceUnavailable extends HttpError {
  constructor(message: string, retryAfterSeconds = 5) {
    super(503, message, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/**
 * A data error as the HttpError the spec's body is built from (undefined for anything else): a
 * missing item is 404, a forged cursor 400, an unavailable database 503 with Retry-After, and a
 * taken name, a stale write or a broken table rule 409.
 */
export function fromDataError(err: unknown): HttpError | undefined {
  if (!(err instanceof DataError)) return undefined;
  const { kind } = err;
  const status = kind === 'ItemNotFound' ? 404 : kind === 'InvalidCursor' ? 400 : kind === 'DatabaseUnavailable' ? 503 : 409;
  return new HttpError(status, err.message, err.details, status === 503 ? { 'Retry-After': '5' } : undefined);
}
