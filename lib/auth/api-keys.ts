import { createHash, randomBytes } from 'node:crypto';

/**
 * The shape of API key secrets: `mo_` and 43 base64url characters (256 random bits). The prefix makes
 * a leaked key recognisable (secret scanners, logs) and tells a key from a login token at a glance: a
 * JWT has two dots and never starts with `mo_`.
 */
const KEY_PREFIX = 'mo_';
/** How much of the secret lists show (`mo_` + 8 characters): enough to tell keys apart, useless to guess. */
const SHOWN_CHARS = KEY_PREFIX.length + 8;
const KEY_SHAPE = /^mo_[A-Za-z0-9_-]{43}$/;

export function newKeySecret(): { secret: string; prefix: string; hash: string } {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, SHOWN_CHARS), hash: hashKeySecret(secret) };
}

/** SHA-256: a key is random, not a password, so a slow hash would add latency to every call and no safety. */
export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export const looksLikeKey = (credential: string) => credential.startsWith(KEY_PREFIX);
export const isWellFormedKey = (credential: string) => KEY_SHAPE.test(credential);
