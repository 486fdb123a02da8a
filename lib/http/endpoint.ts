import type { TObject, TSchema } from '@sinclair/typebox';
import { audit, type AuditOptions } from './middlewares/audit';
import { authenticate } from './middlewares/authenticate';
import { stack, type EmptyObject as Empty, type EndpointOptions } from './stack';
import type { ApiRequest, AuthLevel } from './types';
import type { Checked } from './validation';

export type { EndpointOptions } from './stack';
export { redirect, reply, replyAbout, type AuthLevel } from './types';

type Handler<B extends TSchema, Q extends TObject, P extends TObject, A extends AuthLevel> = (
  request: ApiRequest<Checked<B>, Checked<Q>, Checked<P>, A>,
) => Promise<unknown>;

/**
 * An API endpoint on the shared stack (lib/http/stack.ts) with its guard: authentication with the
 * role check for `auth` (none, user, admin, super_admin). Every function of the API is one of these
 * (or an audited one, below), except the public ones that need no caller: login, the OpenAPI
 * document and the 404 route (lib/http/public-endpoint.ts).
 */
export function endpoint<A extends AuthLevel, B extends TSchema = Empty, Q extends TObject = Empty, P extends TObject = Empty>(
  options: EndpointOptions<B, Q, P, A>,
  handler: Handler<B, Q, P, A>,
) {
  return stack(options, [authenticate(options.auth, options.errorShape === 'message')], handler);
}

/**
 * An admin action: an endpoint whose every outcome, refusals included, is recorded in the audit log
 * (the recorder runs outside authentication so that it sees the final status). A function of its own
 * so that the functions that audit nothing do not bundle the recorder.
 */
export function auditedEndpoint<A extends AuthLevel, B extends TSchema = Empty, Q extends TObject = Empty, P extends TObject = Empty>(
  options: EndpointOptions<B, Q, P, A> & { audit: AuditOptions },
  handler: Handler<B, Q, P, A>,
) {
  return stack(options, [audit(options.audit), authenticate(options.auth, options.errorShape === 'message')], handler);
}
