/**
 * The typed API client: openapi-fetch over the paths generated from docs/openapi.yaml
 * (generated/console/api.ts), so a call that does not match the contract does not compile.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../generated/console/api';
import { expireSession, getSession } from './session';

export type Schemas = components['schemas'];

/** An API error in words: the service's own text (`error` or `message`, then `details`). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly details?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const auth: Middleware = {
  onRequest({ request }) {
    const session = getSession();
    if (session) request.headers.set('Authorization', `Bearer ${session.token}`);
    return request;
  },
  async onResponse({ request, response }) {
    // A 401 to a call that carried the token means the session is over (expired, or the account was
    // deactivated: the service says which); a 401 to the login form is just a wrong password.
    if (response.status === 401 && request.headers.has('Authorization')) {
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as { error?: string; message?: string; details?: string };
      expireSession([body.error, body.message, body.details].filter(Boolean).join(' '));
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '' });
api.use(auth);

function describe(status: number, body: unknown, response: Response): ApiError {
  const b = (body ?? {}) as { error?: unknown; message?: unknown; details?: unknown };
  const text =
    typeof b.error === 'string'
      ? b.error
      : typeof b.message === 'string'
        ? b.message
        : `The service answered ${status} ${response.statusText}`.trim();
  const retry = Number(response.headers.get('Retry-After'));
  return new ApiError(text, status, typeof b.details === 'string' ? b.details : undefined, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/** The data of a successful call, or an ApiError with the service's words. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') throw err;
    throw new ApiError('The service could not be reached. Check your connection and try again.', 0);
  }
  if (!result.response.ok || result.error !== undefined) throw describe(result.response.status, result.error, result.response);
  return result.data as T;
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const parts = [err.message];
    if (err.details && err.details !== err.message) parts.push(err.details);
    if (err.retryAfterSeconds) parts.push(`Try again in ${Math.ceil(err.retryAfterSeconds / 60)} minute(s).`);
    return parts.join(' — ');
  }
  return (err as Error)?.message || 'Something went wrong.';
}
