import { looksLikeKey } from '../../auth/api-keys';
import { InvalidToken, isRevoked, verifyToken } from '../../auth/tokens';
import { getUserById, publicUser, type Role, type User } from '../../../tables/users';
import { Forbidden, Unauthorized, isDomainError } from '../../errors';
import type { ApiEvent, ApiMiddleware, AuthLevel } from '../types';

/** docs/security.md: the admin check is "role equals admin or super_admin". */
const ALLOWED: Record<Exclude<AuthLevel, 'none'>, readonly Role[]> = {
  user: ['user', 'admin', 'super_admin'],
  admin: ['admin', 'super_admin'],
  super_admin: ['super_admin'],
};

const BEARER = /^Bearer +([A-Za-z0-9_\-.=]+)$/i;
const PREFIX_REQUIRED = "The Authorization header must be 'Bearer <token>': the Bearer prefix is required";
const REVOKED = 'The token was revoked (a password change, or signing out everywhere); sign in again';

/**
 * Authentication and the role guard. The user record is read on every request (strongly consistent),
 * so a deactivated or deleted user and a revoked token (a password change, a sign-out everywhere) are
 * refused at once, and the role is the stored one, not the one the token remembers.
 *
 * Login and validate report in `message` with the spec's exact texts; every other endpoint says
 * "Authentication required" and puts the reason in `details`.
 */
export function authenticate(level: AuthLevel, validateStyle: boolean): ApiMiddleware {
  return {
    before: async ({ event, context: { state } }) => {
      if (level === 'none') return;
      // Known before the role check, so that a refused attempt is still attributed (audit log).
      const user = await callerOf(event, validateStyle);
      state.user = user;
      if (!ALLOWED[level].includes(user.role)) {
        throw new Forbidden(level === 'super_admin' ? 'Super admin privileges required' : 'Admin privileges required');
      }
    },
  };
}

/**
 * The caller a public endpoint may show more to (GET /api/auth/config tells admins what sign-on
 * noticed): the user of a valid login token, or undefined for anyone else, who still gets the
 * public answer rather than a 401.
 */
export async function optionalCaller(event: ApiEvent): Promise<User | undefined> {
  if (!event.headers?.authorization) return undefined;
  try {
    return await callerOf(event, false);
  } catch (err) {
    if (isDomainError(err, 'unauthenticated')) return undefined;
    throw err;
  }
}

/** The user of the request's bearer token, as stored now; Unauthorized with the reason otherwise. */
async function callerOf(event: ApiEvent, validateStyle: boolean): Promise<User> {
  const refuse = (reason: string) => (validateStyle ? new Unauthorized(reason) : new Unauthorized('Authentication required', reason));
  const header = event.headers?.authorization;
  if (!header) throw refuse('No token provided');
  const match = BEARER.exec(header.trim());
  // A bare token is the commonest slip: say what is missing (validate keeps the spec's message and
  // says it in details).
  if (!match && !/^Bearer\s/i.test(header.trim())) {
    throw validateStyle ? new Unauthorized('Invalid or expired token', PREFIX_REQUIRED) : refuse(PREFIX_REQUIRED);
  }
  if (!match) throw refuse('Invalid or expired token');
  // API keys open /v1 only; /api takes login tokens (and the reverse holds on /v1).
  if (looksLikeKey(match[1] as string)) throw refuse('API keys are accepted only on /v1; sign in for a token to use /api');
  let claims;
  try {
    claims = await verifyToken(match[1] as string);
  } catch (err) {
    if (err instanceof InvalidToken) throw refuse('Invalid or expired token');
    throw err;
  }
  const user = await getUserById(claims.userId);
  if (!user) throw refuse('Invalid or expired token');
  if (!user.is_active) throw refuse('Account is deactivated');
  if (isRevoked(claims.iat, user.tokens_valid_after)) {
    throw validateStyle ? new Unauthorized('Invalid or expired token', REVOKED) : refuse(REVOKED);
  }
  return publicUser(user);
}
