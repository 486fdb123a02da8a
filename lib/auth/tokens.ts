import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { config } from '../../core/config';
import { ROLES, type Role } from '../../core/vocabulary';
import { signingKey } from './secret';

/** README, Security: exactly these claims. */
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
