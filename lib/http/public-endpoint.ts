import type { TObject, TSchema } from '@sinclair/typebox';
import { stack, type EmptyObject as Empty, type EndpointOptions } from './stack';
import type { ApiRequest } from './types';
import type { Checked } from './validation';

/**
 * An endpoint that needs no caller (login, the OpenAPI document, the 404 route): the same stack as
 * every endpoint (lib/http/stack.ts: headers, CORS, request log, body limits, validation, error
 * shapes) without the guards, so the function bundles no token verification, and no table client
 * unless it reads the table itself.
 */
export function publicEndpoint<B extends TSchema = Empty, Q extends TObject = Empty, P extends TObject = Empty>(
  options: Omit<EndpointOptions<B, Q, P, 'none'>, 'auth'>,
  handler: (request: ApiRequest<Checked<B>, Checked<Q>, Checked<P>, 'none'>) => Promise<unknown>,
) {
  return stack<'none', B, Q, P>({ ...options, auth: 'none' }, [], handler);
}
