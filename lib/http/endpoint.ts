import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { EmptyObject } from './checks';
import { audit } from './middlewares/audit';
import { authenticate, type AuthLevel } from './middlewares/authenticate';
import { stack, type ApiRequest, type EndpointOptions } from './stack';

export { reply, type ApiEvent, type ApiRequest, type AuthLevel, type EndpointOptions, type Reply } from './stack';

type Empty = NonNullable<(typeof EmptyObject)['schema']>;

/**
 * An API endpoint on the shared stack (lib/http/stack.ts) with its guards: the audit recorder when
 * the endpoint names an action, and authentication with the role check for `auth` (none, user,
 * admin, super_admin). Every function of the API is one of these, except the two public ones that
 * never touch a user (lib/http/public-endpoint.ts).
 */
export function endpoint<A extends AuthLevel, B extends TSchema = Empty, Q extends TObject = Empty, P extends TObject = Empty>(
  options: EndpointOptions<B, Q, P, A>,
  handler: (request: ApiRequest<Static<B>, Static<Q>, Static<P>, A>) => Promise<unknown>,
) {
  const guards = [...(options.audit ? [audit(options.audit)] : []), authenticate(options.auth, options.errorShape === 'message')];
  return stack(options, guards, handler);
}
