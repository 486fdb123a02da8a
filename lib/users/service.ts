import { nanosOf } from '../../core/money';
import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { BadRequest, NotFound } from '../errors';
import { NO_PASSWORD, hashPassword } from '../auth/passwords';
import { setAlertThresholds } from '../../tables/alerts';
import { monthOf, setBudget } from '../../tables/budgets';
import { alertThresholdsOf } from '../alerts/thresholds';
import { readUsage } from '../../tables/usage';
import { unsettledCalls } from '../usage/service';
import {
  createUser as insertUser,
  getUserById,
  listUsers as readUsers,
  publicUser,
  revokeTokensBefore,
  updateUser as writeUserChanges,
  type Role,
  type SignOnIdentity,
  type StoredUser,
  type User,
  type UserPatch,
} from '../../tables/users';

const MAX_BCRYPT_BYTES = 72;

/** A new user, as the admin endpoint, the user CLI and the first-start seeding give it. */
export interface NewUser {
  username: string;
  email: string;
  name: string;
  organization?: string;
  cloud_region?: string;
  role: Role;
  password: string;
}

/** What an admin may change about a user. */
export type UserChanges = Partial<Pick<User, 'role' | 'is_active' | 'name' | 'organization' | 'cloud_region' | 'monthly_budget_usd'>> & {
  password?: string;
  /** The budget's alert thresholds (tables/alerts.ts); null: the default. */
  alert_thresholds?: number[] | null;
};

/** A user as admins see them: with the thresholds their budget alerts at. */
export type AdminUserView = User & { alert_thresholds: number[] };

/** The users with their budgets' alert thresholds, in one BatchGet. */
export async function withAlertThresholds(users: User[]): Promise<AdminUserView[]> {
  const owner = (u: User) => ({ kind: 'user', id: u.id }) as const;
  const thresholds = await alertThresholdsOf(users.map(owner));
  return users.map((u) => ({ ...u, alert_thresholds: thresholds(owner(u)) }));
}

function checkPassword(password: string): void {
  if (password.length < config.auth.minPasswordLength) {
    throw new BadRequest(`Password must be at least ${config.auth.minPasswordLength} characters`);
  }
  if (Buffer.byteLength(password, 'utf8') > MAX_BCRYPT_BYTES) {
    throw new BadRequest(`Password must be at most ${MAX_BCRYPT_BYTES} bytes`);
  }
}

/** Used by the admin endpoint, the user CLI and the first-start seeding alike. */
export async function createUser(input: NewUser, now = new Date()): Promise<User> {
  checkPassword(input.password);
  return insertUser(newUserRecord(input, await hashPassword(input.password), now));
}

/**
 * A user provisioned by single sign-on at their first login: no password (an admin may set one
 * later), signed in by `identity` from then on.
 */
export async function provisionUser(input: Omit<NewUser, 'password'>, identity: SignOnIdentity, now = new Date()): Promise<User> {
  return insertUser(newUserRecord(input, NO_PASSWORD, now), identity);
}

function newUserRecord(input: Omit<NewUser, 'password'>, passwordHash: string, now: Date): StoredUser {
  const at = now.toISOString();
  return {
    id: randomUUID(),
    username: input.username,
    email: input.email,
    name: input.name,
    organization: input.organization ?? '',
    cloud_region: input.cloud_region ?? config.cloud.region,
    role: input.role,
    is_active: true,
    created_at: at,
    updated_at: at,
    last_login: null,
    monthly_budget_usd: null,
    password_hash: passwordHash,
    tokens_valid_after: null,
  };
}

export async function getUser(id: string): Promise<AdminUserView> {
  const user = await getUserById(id);
  if (!user) throw new NotFound('User not found');
  return (await withAlertThresholds([publicUser(user)]))[0] as AdminUserView;
}

export async function updateUser(id: string, patch: UserChanges, now = new Date()): Promise<User> {
  const current = await getUserById(id);
  if (!current) throw new NotFound('User not found');
  const { password, alert_thresholds: thresholds, ...fields } = patch;
  const changes: UserPatch = { ...fields };
  if (password !== undefined) {
    checkPassword(password);
    changes.password_hash = await hashPassword(password);
    // A new password signs the user out everywhere: a token taken with the old one is refused.
    changes.tokens_valid_after = Math.max(now.getTime(), current.tokens_valid_after ?? 0);
  }
  const user = await writeUserChanges(current, changes, now.toISOString());
  // The budget of the month under way moves with it at once (tables/budgets.ts). A budget that starts
  // now counts the month's session chat so far, which was not charged while there was none.
  if (patch.monthly_budget_usd !== undefined) {
    const starts = current.monthly_budget_usd === null && patch.monthly_budget_usd !== null;
    // The month's whole spend, with their gateway calls not settled yet (tables/calls.ts).
    const spentSoFar = async () => nanosOf((await readUsage({ kind: 'user', id }, now, unsettledCalls(id))).mtd.cost_usd);
    await setBudget({ kind: 'user', id }, monthOf(now), patch.monthly_budget_usd, starts ? spentSoFar : undefined);
  }
  if (thresholds !== undefined) await setAlertThresholds({ kind: 'user', id }, thresholds);
  return user;
}

/** A page of users, oldest first, as admins see them. */
export async function listUsers(limit: number, cursor?: string): Promise<{ users: AdminUserView[]; nextCursor: string | null }> {
  const page = await readUsers(limit, cursor);
  return { users: await withAlertThresholds(page.users), nextCursor: page.nextCursor };
}

/**
 * POST /api/auth/logout-all: every login token of the user issued until now is refused from the next
 * request on, the caller's own included (lib/auth/tokens.ts isRevoked). A new login works at once.
 */
export async function signOutEverywhere(userId: string, now = new Date()): Promise<void> {
  await revokeTokensBefore(userId, now.getTime());
}
