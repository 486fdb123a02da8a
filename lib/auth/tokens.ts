import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { config } from '../../core/config';
import { ROLES, type Role } from '../../core/vocabulary';
import { signingKey } from './secret';

/** docs/security.md: exactly these claims. */
export interface TokenClaims {
  userId: string;
  username: string;
  role: Role;
  iat: number;
  exp: number;
}

export async function issueToken(user: { id: string; username: string; role: Role }, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ userId: user.id, username: user.username, role: user.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + config.auth.tokenLifetimeSeconds)
    .sign(await signingKey());
}

/**
 * Revoked tokens. A user's `tokens_valid_after` (epoch ms: a password change, a sign-out everywhere)
 * is sharper than a token's `iat`, which counts whole seconds (spec 2.2), so a token issued in the
 * same second as the revocation cannot tell whether it came before or after. Every token of that
 * second is refused: tokens are valid from the first whole second at or after the revocation, and
 * login (lib/auth/login.ts) issues no token inside a revoked second: it waits for the next one (at
 * most a second, and only right after a revocation of that user).
 */
export const tokensValidFromMs = (validAfterMs: number | null): number => (validAfterMs === null ? 0 : Math.ceil(validAfterMs / 1000) * 1000);

export const isRevoked = (iat: number, validAfterMs: number | null): boolean => iat * 1000 < tokensValidFromMs(validAfterMs);

export class InvalidToken extends Error {
  override name = 'InvalidToken';
}

/**
 * Verifies signature, algorithm and lifetime. Only HS256 is accepted (so `alg: none`, RS256 and
 * friends fail before any key is used); `exp` and `iat` are required and must be exactly 24 h apart,
 * so a token minted with a longer life by anyone holding an old secret is refused too.
 */
export async function verifyToken(token: string): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, await signingKey(), {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'iat'],
    });
    const { userId, username, role, iat, exp } = payload as Partial<TokenClaims>;
    if (
      typeof userId !== 'string' ||
      typeof username !== 'string' ||
      !ROLES.includes(role as Role) ||
      typeof iat !== 'number' ||
      typeof exp !== 'number' ||
      exp - iat !== config.auth.tokenLifetimeSeconds
    ) {
      throw new InvalidToken('Token claims are malformed');
    }
    return { userId, username, role: role as Role, iat, exp };
  } catch (err) {
    if (err instanceof InvalidToken || err instanceof joseErrors.JOSEError) throw new InvalidToken(err.message);
    throw err;
  }
}
