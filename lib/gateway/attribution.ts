import { BadRequest } from '../errors';

/**
 * Who a /v1 call was for, as the client says it, recorded with the call (tables/calls.ts) so that its
 * usage can be read by session: Claude Code's `X-Claude-Code-Session-Id` header (it sends one on every
 * request of a session), and the end user the request names (Anthropic's `metadata.user_id`, OpenAI's
 * `user`). Both are the client's own words: at most 256 printable characters each, anything else a 400
 * in the route's dialect rather than a control character or a megabyte in the call log. An empty one
 * is none.
 */
export interface Attribution {
  session?: string;
  endUser?: string;
}

/** The end user a request names, and the field it is in (for the refusal). */
export interface EndUser {
  value: string | null | undefined;
  param: string;
}

const SESSION_HEADER = 'x-claude-code-session-id';

const MAX_CHARS = 256;
/** Printable: no control, format, surrogate, private-use or unassigned code point. */
const PRINTABLE = /^[^\p{C}]+$/u;

function checked(value: string | null | undefined, param: string, what: string): string | undefined {
  if (value == null || value === '') return undefined;
  if ([...value].length > MAX_CHARS || !PRINTABLE.test(value)) {
    throw new BadRequest(`Invalid ${what}: it must be at most ${MAX_CHARS} printable characters`, { param });
  }
  return value;
}

/** The call's attribution from the request's headers (lower-cased) and the end user its body names. */
export function attributionOf(headers: Record<string, string | undefined>, endUser?: EndUser): Attribution {
  const session = checked(headers[SESSION_HEADER], SESSION_HEADER, `header '${SESSION_HEADER}'`);
  const user = endUser && checked(endUser.value, endUser.param, `field '${endUser.param}'`);
  return { ...(session !== undefined && { session }), ...(user !== undefined && { endUser: user }) };
}
