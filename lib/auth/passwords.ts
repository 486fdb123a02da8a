import bcrypt from 'bcryptjs';
import { config } from '../../core/config';

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, config.auth.bcryptCost);
}

// A hash of a random string at the configured cost: an unknown user is compared against it, so a
// login for a name that does not exist takes as long as a wrong password and timing reveals nothing.
// Made on the first compare, not at import (it cost every user-management cold start ~85 ms), and
// every compare waits for it, so the first login of a container is equally slow for known and
// unknown names.
let dummyHash: Promise<string> | undefined;

/** What a user without a password holds instead of a hash (one provisioned by single sign-on): matches nothing. */
export const NO_PASSWORD = '';

const isHash = (hash: string | undefined): hash is string => typeof hash === 'string' && /^\$2[aby]\$\d\d\$/.test(hash);

/**
 * bcrypt's compare is constant-time in the hash comparison. `undefined` (no such user) and a user
 * without a password compare against the dummy, so neither answers faster than a wrong password.
 */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  dummyHash ??= bcrypt.hash(`no-such-user-${Math.random()}`, config.auth.bcryptCost);
  const dummy = await dummyHash;
  const matches = await bcrypt.compare(password, isHash(hash) ? hash : dummy);
  return matches && isHash(hash);
}
