import { randomUUID } from 'node:crypto';
import { createUser } from '../../lib/users/service';
import { issueToken } from '../../lib/auth/tokens';
import type { Role, User } from '../../tables/users';

export const PASSWORD = 'correct-horse-battery';

/** A fresh user of the given role with a unique name, and a valid token for it. */
export async function makeUser(role: Role, overrides: Partial<{ username: string; email: string; password: string }> = {}) {
  const tag = randomUUID().slice(0, 8);
  const user: User = await createUser({
    username: overrides.username ?? `${role}-${tag}`,
    email: overrides.email ?? `${role}-${tag}@example.com`,
    name: `Test ${role}`,
    organization: 'Tests',
    role,
    password: overrides.password ?? PASSWORD,
  });
  return { user, token: await issueToken(user) };
}
