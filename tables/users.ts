import type { Role } from '../core/vocabulary';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TABLE, db, getItems, queryIndexPage } from './client';
import { USER_PROFILE_SK, userPartition } from './partitions';
import { attribute, defineEntity, type RecordOf } from './entity';
import { DataError } from './errors';
import { cancellationReasons, type TransactItems } from './transactions';

/**
 * Users.
 *
 *   PK USER#<id>               SK PROFILE   the user (GSI1: USERS / <created_at>#<id> lists them)
 *   PK USERNAME#<lowercased>   SK UNIQUE    guards username uniqueness: userId, password_hash, is_active
 *   PK EMAIL#<lowercased>      SK UNIQUE    guards e-mail uniqueness: userId, password_hash, is_active
 *   PK COUNTER                 SK ACTIVE_SUPER_ADMINS   how many active super_admins exist
 *   PK IDENTITY#<issuer>#<sub> SK UNIQUE    a single sign-on identity (OpenID Connect issuer and
 *                                           subject): the user it signs in (userId)
 *
 * The user and both guards are written in one transaction, so a username or e-mail can never be
 * taken twice, even by concurrent requests. Both are compared case-insensitively. The super_admin
 * counter changes in the same transaction as any role or activation change, with a condition that
 * keeps it at one or more: the last active super_admin cannot be demoted, even by two racing requests.
 *
 * The guards carry copies of `password_hash` and `is_active`, so that login reads one item before the
 * bcrypt compare (`getLoginCandidate`) and reads the user while the hash runs. Username and e-mail
 * never change, so the guards never move; `updateUser` rewrites both copies in the same transaction
 * as the user whenever a patch changes the hash or the activation. The user item stays the source of
 * truth. Guards written before the copies existed hold only `userId`: login falls back to reading the
 * user for them, and their next password or activation change fills the copies in.
 */
export { ROLES, type Role } from '../core/vocabulary';

/** A user as every response shows it (docs/openapi.yaml User): never the hash, never a key. */
const USER = defineEntity({
  id: attribute.as<string>(),
  username: attribute.as<string>(),
  email: attribute.as<string>(),
  name: attribute.as<string>(),
  organization: attribute.as<string>(),
  cloud_region: attribute.as<string>(),
  role: attribute.as<Role>(),
  is_active: attribute.as<boolean>(),
  created_at: attribute.as<string>(),
  updated_at: attribute.as<string>(),
  last_login: attribute.nullable<string>(),
  /** USD per calendar month (UTC) for the user's chat and API keys together; null: no budget. */
  monthly_budget_usd: attribute.nullableNumber(),
});

/** Everything kept about a user. */
const STORED_USER = USER.with({
  /** Read as stored, even absent (an account without a password never matches one). */
  password_hash: attribute.stored<string>(),
  /**
   * Login tokens issued before this moment (epoch ms) are refused: set by a password change and by
   * signing out everywhere (lib/auth/tokens.ts isRevoked says how a token's whole-second `iat` is
   * compared with it). null: none revoked.
   */
  tokens_valid_after: attribute.read((stored) => (typeof stored === 'number' ? stored : null)),
});

export type User = RecordOf<typeof USER>;
export type StoredUser = RecordOf<typeof STORED_USER>;

const userKey = (id: string) => ({ PK: userPartition(id), SK: USER_PROFILE_SK });
const usernameKey = (username: string) => ({ PK: `USERNAME#${username.toLowerCase()}`, SK: 'UNIQUE' });
const emailKey = (email: string) => ({ PK: `EMAIL#${email.toLowerCase()}`, SK: 'UNIQUE' });
const superAdminCounterKey = { PK: 'COUNTER', SK: 'ACTIVE_SUPER_ADMINS' };
const identityKey = (issuer: string, subject: string) => ({ PK: `IDENTITY#${issuer}#${subject}`, SK: 'UNIQUE' });

/** A single sign-on identity: who the provider (`issuer`) says signed in (`subject`). */
export interface SignOnIdentity {
  issuer: string;
  subject: string;
}
const USERS_PARTITION = 'USERS';

export const userFromItem = (item: Record<string, unknown>): StoredUser => STORED_USER.read(item);

/** The user as every response shows it: never the hash, never a key. */
export const publicUser = (user: User | StoredUser): User => USER.read(user);

const countsAsSuperAdmin = (u: Pick<User, 'role' | 'is_active'>) => u.role === 'super_admin' && u.is_active;

function superAdminCounterUpdate(delta: number): NonNullable<TransactWriteCommandInput['TransactItems']>[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: superAdminCounterKey,
      UpdateExpression: 'ADD #count :delta',
      // Decrements must leave at least one active super_admin.
      ConditionExpression: delta < 0 ? '#count > :one' : undefined,
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: delta < 0 ? { ':delta': delta, ':one': 1 } : { ':delta': delta },
    },
  };
}

/** What a name guard holds besides its key: the user it points at and the copies login reads. */
const guardCopies = (user: Pick<StoredUser, 'id' | 'password_hash' | 'is_active'>) => ({
  userId: user.id,
  password_hash: user.password_hash,
  is_active: user.is_active,
});

/** Rewrites a guard's copies; conditional on the guard pointing at this user (it never creates one). */
function guardCopiesUpdate(key: Record<string, string>, user: StoredUser): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: key,
      UpdateExpression: 'SET password_hash = :hash, is_active = :active',
      ConditionExpression: 'userId = :id',
      ExpressionAttributeValues: { ':hash': user.password_hash, ':active': user.is_active, ':id': user.id },
    },
  };
}

/**
 * Creates a user with both name guards (and, for a user provisioned by single sign-on, the identity
 * that signs them in) in one transaction.
 */
export async function createUser(user: StoredUser, identity?: SignOnIdentity): Promise<User> {
  // Written only once set: revokeTokensBefore's condition reads an absent attribute as "none revoked".
  const { tokens_valid_after: validAfter, ...fields } = user;
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Put: {
        TableName: TABLE,
        Item: {
          ...userKey(user.id),
          GSI1PK: USERS_PARTITION,
          GSI1SK: `${user.created_at}#${user.id}`,
          entity: 'user',
          ...fields,
          ...(validAfter === null ? {} : { tokens_valid_after: validAfter }),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: TABLE,
        Item: { ...usernameKey(user.username), ...guardCopies(user) },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: TABLE,
        Item: { ...emailKey(user.email), ...guardCopies(user) },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  if (identity) items.push(identityPut(identity, user.id));
  if (countsAsSuperAdmin(user)) items.push(superAdminCounterUpdate(1));
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (reasons?.[1] === 'ConditionalCheckFailed') throw new DataError('NameTaken', 'Username is already taken');
    if (reasons?.[2] === 'ConditionalCheckFailed') throw new DataError('NameTaken', 'E-mail is already registered');
    if (identity && reasons?.[3] === 'ConditionalCheckFailed') throw new DataError('NameTaken', 'This sign-on identity already belongs to a user');
    throw err;
  }
  return publicUser(user);
}

function identityPut(identity: SignOnIdentity, userId: string): TransactItems[number] {
  return {
    Put: {
      TableName: TABLE,
      Item: { ...identityKey(identity.issuer, identity.subject), entity: 'identity', userId, ...identity },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** The user a sign-on identity signs in, if it has been seen before. */
export async function getUserIdByIdentity(identity: SignOnIdentity): Promise<string | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: identityKey(identity.issuer, identity.subject), ConsistentRead: true }));
  return Item?.userId as string | undefined;
}

/** Links a sign-on identity to an existing user (conditional: an identity signs in one user only). */
export async function linkIdentity(identity: SignOnIdentity, userId: string): Promise<void> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: [identityPut(identity, userId)] }));
  } catch (err) {
    if (cancellationReasons(err)?.[0] === 'ConditionalCheckFailed')
      throw new DataError('NameTaken', 'This sign-on identity already belongs to a user');
    throw err;
  }
}

/**
 * The user item, strongly consistent: every request's authentication reads it (role, activation,
 * revoked tokens), and an eventually consistent read could let a token through for a moment after
 * the user was deactivated, demoted or signed out everywhere. 1 read unit instead of 0.5.
 */
export async function getUserById(id: string): Promise<StoredUser | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: userKey(id), ConsistentRead: true }));
  return Item ? userFromItem(Item) : undefined;
}

/** Several users by id, in one BatchGet; missing ones are left out. */
export async function getUsers(ids: string[]): Promise<Map<string, StoredUser>> {
  if (ids.length === 0) return new Map();
  const items = await getItems(ids.map(userKey));
  return new Map(ids.flatMap((id) => (items(userKey(id)) ? [[id, userFromItem(items(userKey(id)) as Record<string, unknown>)] as const] : [])));
}

/** Login accepts a username or an e-mail; usernames cannot contain '@', so one lookup suffices. */
const loginKey = (login: string) => (login.includes('@') ? emailKey(login) : usernameKey(login));

export interface LoginCandidate {
  userId: string;
  password_hash: string;
  is_active: boolean;
  /** The user item, when it had to be read already (a guard written before the copies existed). */
  user?: StoredUser;
}

/**
 * What login needs before the bcrypt compare, from one GetItem on the name guard, strongly consistent
 * like the user item: right after a password reset or a deactivation the old hash or activation must
 * not be read back. A guard without the copies (written before they existed) costs a second read, of
 * the user item, as every login did before.
 */
export async function getLoginCandidate(login: string): Promise<LoginCandidate | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: loginKey(login), ConsistentRead: true }));
  if (!Item) return undefined;
  const userId = Item.userId as string;
  if (typeof Item.password_hash === 'string' && typeof Item.is_active === 'boolean') {
    return { userId, password_hash: Item.password_hash, is_active: Item.is_active };
  }
  const user = await getUserById(userId);
  return user ? { userId, password_hash: user.password_hash, is_active: user.is_active, user } : undefined;
}

/** The user a candidate stands for: the item already read, or one GetItem. */
export function userOfCandidate(candidate: LoginCandidate): Promise<StoredUser | undefined> {
  return candidate.user ? Promise.resolve(candidate.user) : getUserById(candidate.userId);
}

/** The user by username or e-mail: the guard, then the user (the CLI and the seeding). */
export async function getUserByLogin(login: string): Promise<StoredUser | undefined> {
  const candidate = await getLoginCandidate(login);
  return candidate ? userOfCandidate(candidate) : undefined;
}

/**
 * The user whose e-mail guard this is: by e-mail only, never by username, whatever the text (single
 * sign-on links an account by a claim that the provider, not the person, vouches for).
 */
export async function getUserByEmail(email: string): Promise<StoredUser | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: emailKey(email), ConsistentRead: true }));
  return Item ? getUserById(Item.userId as string) : undefined;
}

export async function listUsers(limit: number, cursor?: string): Promise<{ users: User[]; nextCursor: string | null }> {
  const { items, nextCursor } = await queryIndexPage(USERS_PARTITION, { forward: true, limit, cursor });
  return { users: items.map((i) => publicUser(userFromItem(i))), nextCursor };
}

export async function recordLogin(id: string, at: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: userKey(id),
      UpdateExpression: 'SET last_login = :at',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':at': at },
    }),
  );
}

export type UserPatch = Partial<
  Pick<StoredUser, 'role' | 'is_active' | 'name' | 'organization' | 'cloud_region' | 'password_hash' | 'monthly_budget_usd' | 'tokens_valid_after'>
>;

/**
 * Refuses every login token of the user issued before `atMs` (sign out everywhere). Only ever moves
 * the time forward, so two revocations racing each other keep the later one; a user who no longer
 * exists is left alone (their tokens are refused anyway).
 */
export async function revokeTokensBefore(id: string, atMs: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: userKey(id),
        UpdateExpression: 'SET tokens_valid_after = :at',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(tokens_valid_after) OR tokens_valid_after < :at)',
        ExpressionAttributeValues: { ':at': atMs },
      }),
    );
  } catch (err) {
    if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
  }
}

/**
 * Applies a patch to the user as it was read (`current`). The write is conditional on role and
 * activation being unchanged since then, so the super_admin counter delta is always right.
 */
export async function updateUser(current: StoredUser, patch: UserPatch, at: string): Promise<User> {
  const next = { ...current, ...patch, updated_at: at };
  const delta = Number(countsAsSuperAdmin(next)) - Number(countsAsSuperAdmin(current));

  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':role0': current.role, ':active0': current.is_active };
  const sets = Object.entries({ ...patch, updated_at: at }).map(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Update: {
        TableName: TABLE,
        Key: userKey(current.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(PK) AND #role0 = :role0 AND is_active = :active0',
        ExpressionAttributeNames: { ...names, '#role0': 'role' },
        ExpressionAttributeValues: values,
      },
    },
  ];
  // Cancellation reasons are indexed by item position: the user is 0, then the counter (if any),
  // then the guards (if any).
  const counterIndex = delta !== 0 ? items.push(superAdminCounterUpdate(delta)) - 1 : -1;
  const guardsChange = patch.password_hash !== undefined || patch.is_active !== undefined;
  const firstGuardIndex = items.length;
  if (guardsChange) items.push(guardCopiesUpdate(usernameKey(current.username), next), guardCopiesUpdate(emailKey(current.email), next));
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (counterIndex >= 0 && reasons?.[counterIndex] === 'ConditionalCheckFailed')
      throw new DataError('RuleViolation', 'The last active super_admin cannot be demoted or deactivated');
    if (reasons?.[0] === 'ConditionalCheckFailed')
      throw new DataError('StaleWrite', 'The user was changed by another request; read it again and retry');
    if (guardsChange && reasons?.slice(firstGuardIndex).includes('ConditionalCheckFailed')) {
      // Usernames and e-mails never change, so this is a broken invariant, not a client error.
      throw new Error(`The name guards of user ${current.id} do not point at it; nothing was changed`, { cause: err });
    }
    throw err;
  }
  return publicUser(next);
}
