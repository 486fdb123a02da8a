import bcrypt from 'bcryptjs';
import { config } from '../config';

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, config.auth.bcryptCost);
}

// A hash of a random string at the configured cost: an unknown user is compared against it, so a
// login for a name that does not exist takes as long as a wrong password and timing reveals nothing.
const dummyHash = bcrypt.hashSync(`no-such-user-${Math.random()}`, config.auth.bcryptCost);

/** bcrypt's compare is constant-time in the hash comparison; `undefined` compares against the dummy. */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  const matches = await bcrypt.compare(password, hash ?? dummyHash);
  return matches && hash !== undefined;
}
