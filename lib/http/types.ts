import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { ApiKey } from '../../tables/keys';
import type { Membership } from '../../tables/teams';
import type { RateReport } from '../budgets/rate-limits';
import type { User } from '../../tables/users';

/**
 * What every part of lib/http speaks: the event as the middlewares enrich it, the request a handler
 * receives and the reply it may return. The stack (stack.ts) and its middlewares both import these,
 * so the middlewares never import the stack that composes them.
 */

/** Who may call an endpoint: anyone, or a caller with at least this role (docs/security.md). */
export type AuthLevel = 'none' | 'user' | 'admin' | 'super_admin';

export interface ApiEvent extends APIGatewayProxyEventV2 {
  /** Set by the authenticate middleware: the caller as stored now (not as the token remembers it). */
  user?: User;
  /** Set by the /v1 guard (authenticate-key): the API key the call presented. */
  apiKey?: ApiKey;
  /** Set by the /v1 guard: the caller's team memberships, read with their profile. */
  memberships?: Membership[];
  /** Set by a metered /v1 call: what its caller is told of their rate windows (the x-ratelimit-* headers). */
  rateReport?: RateReport | Promise<RateReport>;
  /** Set by the /v1 guard: a read the handler needs, started beside the key's lookup (lib/http/key-endpoint.ts). */
  prefetched?: Promise<unknown>;
  /** Set by the input middleware: body, query and path, parsed and validated. */
  input?: { body: unknown; query: unknown; path: unknown };
  /** Set from an audited handler's reply: what the action was done to, as the domain resolved it. */
  auditTarget?: string;
}

export interface ApiRequest<B, Q, P, A extends AuthLevel> {
  body: B;
  query: Q;
  path: P;
  user: A extends 'none' ? undefined : User;
  event: ApiEvent;
  context: Context;
}

/** What a handler may return: a plain object (200) or a `reply` with another status or headers. */
export interface Reply {
  readonly [REPLY]: true;
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
  /** For the audit log (audited endpoints): what the action was done to, when the request alone cannot say. */
  auditTarget?: string;
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
}
export const STREAMED = Symbol('streamed');

export function streamed(statusCode: number, body: AsyncIterable<string | Uint8Array>, headers: Record<string, string>): Streamed {
  return { [STREAMED]: true, statusCode, body, headers };
}
