/**
 * First-start seeding: the first super_admin. Imported only after the environment points at the
 * local table (core/config reads it at import).
 */
import { randomBytes } from 'node:crypto';
import { getUserByLogin } from '../tables/users';
import { createUser } from '../lib/users/service';

export interface SeedResult {
  created: boolean;
  username: string;
  /** Only when generated: printed once, never stored in clear. */
  generatedPassword?: string;
}

export async function seedSuperAdmin(env = process.env): Promise<SeedResult> {
  const username = env.ADMIN_USERNAME?.trim() || 'admin';
  const email = env.ADMIN_EMAIL?.trim() || `${username}@example.com`;
  if (await getUserByLogin(username)) return { created: false, username };
  const generatedPassword = env.ADMIN_PASSWORD ? undefined : randomBytes(12).toString('base64url');
  await createUser({
    username,
    email,
    name: 'Administrator',
    organization: env.ADMIN_ORGANIZATION?.trim() || 'Model Ops',
    role: 'super_admin',
    password: env.ADMIN_PASSWORD ?? (generatedPassword as string),
  });
  return { created: true, username, generatedPassword };
}
