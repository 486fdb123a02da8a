import type { TObject, TSchema } from '@sinclair/typebox';
import { audit } from './middlewares/audit';
import { authenticate } from './middlewares/authenticate';
import { stack, type EmptyObject as Empty, type EndpointOptions } from './stack';
import type { ApiRequest, AuthLevel } from './types';
import type { Checked } from './validation';

export type { EndpointOptions } from './stack';
export { reply, type ApiEvent, type ApiRequest, type AuthLevel, type Reply } from './types';

/**
 * An API endpoint on the shared stack (lib/http/stack.ts) with its guards: the audit recorder when
 * the endpoint names an action, and authentication with the role check for `auth` (none, user,
 * admin, super_admin). Every function of the API is one of these, except the public ones that need
 * no caller: login, the OpenAPI document and the 404 route (lib/http/public-endpoint.ts).
 */
export function endpoint<A extends AuthLevel, B extends TSchema = Empty, Q extends TObject = Empty, P extends TObject = Empty>(
  options: EndpointOptions<B, Q, P, A>,
  handler: (request: ApiRequest<Checked<B>, Checked<Q>, Checked<P>, A>) => Promise<unknown>,
) {
  const guards = [...(options.audit ? [audit(options.audit)] : []), authenticate(options.auth, options.errorShape === 'message')];
  return stack(options, guards, handler);
}
