import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { ApiKey } from '../../tables/keys';
import type { Membership } from '../../tables/teams';
import type { RateNews } from '../budgets/rate-limits';
import type { User } from '../../tables/users';

/**
 * What every part of lib/http speaks: the event as the middlewares enrich it, the request a handler
 * receives and the reply it may return. The stack (stack.ts) and its middlewares both import these,
 * so the middlewares never import the stack that composes them.
 */

/** Who may call an endpoint: anyone, or a caller with at least this role (docs/security.md). */
export type AuthLevel = 'none' | 'user' | 'admin' | 'super_admin';

/** The request as API Gateway (or a function URL) sends it; the middlewares never add to it. */
export type ApiEvent = APIGatewayProxyEventV2;

/**
 * What the middlewares learn about one request, kept on its context (`context.state`, ApiContext)
 * rather than on the event: each field is set by exactly one middleware of the stack.
 */
interface RequestState {
  /** Set by the authenticate middleware (or the /v1 guard): the caller as stored now (not as the token remembers it). */
  user?: User;
  /** Set by the /v1 guard (authenticate-key): the API key the call presented. */
  apiKey?: ApiKey;
  /** Set by the /v1 guard: the caller's team memberships, read with their profile. */
  memberships?: Membership[];
  /** Set by the /v1 guard: a read the handler needs, started beside the key's lookup (lib/http/key-endpoint.ts). */
  prefetched?: Promise<unknown>;
  /** Set by the input middleware: body, query and path, parsed and validated. */
  input?: { body: unknown; query: unknown; path: unknown };
  /** Set from the handler's reply: what an audited action was done to, as the domain resolved it. */
  auditTarget?: string;
}

/** Lambda's context with the request's state (lib/http/stack.ts gives every invocation its own). */
export interface ApiContext extends Context {
  readonly state: RequestState;
}

/** A middleware of the one stack: it reads and sets the request's state on its typed context. */
export type ApiMiddleware = middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2, Error, ApiContext>;
export type ApiMiddlewareFn = middy.MiddlewareFn<ApiEvent, APIGatewayProxyResultV2, Error, ApiContext>;

export interface ApiRequest<B, Q, P, A extends AuthLevel> {
  body: B;
  query: Q;
  path: P;
  user: A extends 'none' ? undefined : User;
  event: ApiEvent;
  context: ApiContext;
}

/**
 * What a handler may return: its data (200) or a `reply` with another status or headers. On the spec's
 * routes the stack wraps either in `{success: true, ...}` (lib/http/envelope.ts); a handler never does.
 */
export interface Reply {
  readonly [REPLY]: true;
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
  /** For the audit log (audited endpoints): what the action was done to, when the request alone cannot say. */
  auditTarget?: string;
  /** What a metered /v1 call found of its caller's rate windows: the x-ratelimit-* headers (lib/http/key-endpoint.ts). */
  rates?: RateNews;
}
export const REPLY = Symbol('reply');

export function reply(statusCode: number, body: unknown, headers?: Record<string, string>): Reply {
  return { [REPLY]: true, statusCode, body, headers };
}

/**
 * A reply of an audited action that names its target as the domain resolved it: the user behind a
 * username, say, which the request does not carry and the answer may not show.
 */
export function replyAbout(target: string, statusCode: number, body: unknown): Reply {
  return { ...reply(statusCode, body), auditTarget: target };
}

/**
 * A redirect (302, no body) that may set a cookie: the browser-facing steps of single sign-on. Never
 * cached: each answer is for one browser and one moment.
 */
export function redirect(location: string, cookie?: string): Reply {
  return reply(302, undefined, { Location: location, ...(cookie ? { 'Set-Cookie': cookie } : {}) });
}

/**
 * A reply whose body is produced as it is sent (server-sent events). A streaming function
 * (`streaming: true` on the stack) sends each piece as it comes; any other function sends them all at
 * once, when the last has come.
 */
export interface Streamed {
  readonly [STREAMED]: true;
  statusCode: number;
  /** Text (server-sent events) or bytes (AWS's event stream). */
  body: AsyncIterable<string | Uint8Array>;
  headers: Record<string, string>;
  /** As a Reply's: sent in the headers, before the first piece. */
  rates?: RateNews;
}
export const STREAMED = Symbol('streamed');

export function streamed(statusCode: number, body: AsyncIterable<string | Uint8Array>, headers: Record<string, string>): Streamed {
  return { [STREAMED]: true, statusCode, body, headers };
}

/** An answer of a metered call with the rate report its holds returned (none: no limit applied). */
export function withRates<T extends Reply | Streamed>(answer: T, rates: RateNews | undefined): T {
  return rates === undefined ? answer : { ...answer, rates };
}
