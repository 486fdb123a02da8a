import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GSI2, TABLE, db, decodeCursor, encodeCursor, getItems, queryIndexPage } from './client';
import { attribute, defineEntity, type RecordOf } from './entity';
import type { ServiceTierName } from './teams';
import type { TransactItems } from './transactions';

/**
 * API keys of the OpenAI-compatible gateway (/v1). The secret itself is never stored: only its
 * SHA-256 (a key is 256 random bits, not a password, so a fast hash loses nothing and costs nothing).
 *
 *   PK KEY#<id>          SK META     the key record  (GSI1 USERKEYS#<userId> / <created_at>#<id>: a
 *                                    user's keys; GSI2 APIKEYS / <created_at>#<id>: every key, admins)
 *   PK KEYHASH#<sha256>  SK LOOKUP   what a /v1 call needs to know about the key: one GetItem per call
 *   PK TEAMKEYS#<teamId> SK <created_at>#<id>   a team key's entry in its team's list (key_id, user_id;
 *                                    never changes), written with the key
 *
 * Both are written in one transaction, so the lookup always says what the record says: a revoked or
 * expired key is refused from the next call on. Revocation keeps both items (marked), so a client
 * using a revoked key hears "revoked" rather than "unknown", and the list still shows the key.
 *
 * A team key (`team_id`) is created only by a member of the team (a condition on the membership in
 * the same transaction) and counted in the team's `active_keys` until it is revoked (the count moves
 * in the revoking transaction), so a team is never deleted while a key can still spend on it.
 */

const API_KEY = defineEntity({
  id: attribute.as<string>(),
  user_id: attribute.as<string>(),
  name: attribute.as<string>(),
  /** The first characters of the secret (`mo_` + 8): what lists show, enough to tell keys apart. */
  prefix: attribute.as<string>(),
  created_at: attribute.as<string>(),
  expires_at: attribute.nullable<string>(),
  monthly_budget_usd: attribute.nullableNumber(),
  /** The resources the key may call; null: every resource. */
  resource_ids: attribute.nullable<string[]>(),
  revoked_at: attribute.nullable<string>(),
  /** The team the key spends for; null: a personal key. Set at creation, never changed. */
  team_id: attribute.nullable<string>(),
  /** Requests and tokens per minute; null: no limit of the key's own. */
  rpm_limit: attribute.nullableNumber(),
  tpm_limit: attribute.nullableNumber(),
  /** The processing tiers its calls may use (`default`, `flex`, `priority`); null: every tier. */
  allowed_service_tiers: attribute.nullable<ServiceTierName[]>(),
});

export type ApiKey = RecordOf<typeof API_KEY>;

export type ApiKeyPatch = Partial<
  Pick<ApiKey, 'name' | 'expires_at' | 'monthly_budget_usd' | 'resource_ids' | 'rpm_limit' | 'tpm_limit' | 'allowed_service_tiers'>
>;

const recordKey = (id: string) => ({ PK: `KEY#${id}`, SK: 'META' });
const lookupKey = (hash: string) => ({ PK: `KEYHASH#${hash}`, SK: 'LOOKUP' });
const ownerPartition = (userId: string) => `USERKEYS#${userId}`;
const ALL_KEYS = 'APIKEYS';
const teamKeysPartition = (teamId: string) => `TEAMKEYS#${teamId}`;

const fromItem = (item: Record<string, unknown>): ApiKey => API_KEY.read(item);

/**
 * A new key's items, each put only where nothing is: its record and its lookup (`own`), and a team
 * key's entry in its team's list (`teamEntry`). tables/writes/keys.ts writes them with the team's
 * side in one transaction.
 */
export function apiKeyPuts(key: ApiKey, hash: string): { own: TransactItems; teamEntry: TransactItems } {
  const sort = `${key.created_at}#${key.id}`;
  const put = (Item: Record<string, unknown>): TransactItems[number] => ({
    Put: { TableName: TABLE, Item, ConditionExpression: 'attribute_not_exists(PK)' },
  });
  return {
    own: [
      put({
        ...recordKey(key.id),
        entity: 'api-key',
        GSI1PK: ownerPartition(key.user_id),
        GSI1SK: sort,
        GSI2PK: ALL_KEYS,
        GSI2SK: sort,
        hash,
        ...key,
      }),
      put({ ...lookupKey(hash), entity: 'api-key-lookup', ...key }),
    ],
    teamEntry: key.team_id ? [put({ PK: teamKeysPartition(key.team_id), SK: sort, entity: 'team-key', key_id: key.id, user_id: key.user_id })] : [],
  };
}

/** The key a /v1 call presents, by the hash of its secret: one strongly consistent GetItem. */
export async function getKeyByHash(hash: string): Promise<ApiKey | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: lookupKey(hash), ConsistentRead: true }));
  return Item ? fromItem(Item) : undefined;
}

export async function getApiKeyRecord(id: string): Promise<ApiKey | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: recordKey(id), ConsistentRead: true }));
  return Item ? fromItem(Item) : undefined;
}

/** A user's keys (GSI1), or every key (GSI2, for admins), newest first. */
export async function listApiKeyRecords(
  owner: { userId: string } | 'all',
  limit: number,
  cursor?: string,
): Promise<{ keys: ApiKey[]; nextCursor: string | null }> {
  const page =
    owner === 'all'
      ? await queryIndexPage(ALL_KEYS, { forward: false, limit, cursor, index: GSI2 })
      : await queryIndexPage(ownerPartition(owner.userId), { forward: false, limit, cursor });
  return { keys: page.items.map(fromItem), nextCursor: page.nextCursor };
}

/** Keys by id, in one BatchGet (absent ids are left out). */
export async function getApiKeyRecords(ids: string[]): Promise<Map<string, ApiKey>> {
  const records = await getItems(ids.map(recordKey), false);
  return new Map(ids.flatMap((id) => (records(recordKey(id)) ? [[id, fromItem(records(recordKey(id)) as Record<string, unknown>)] as const] : [])));
}

/** A team's keys, newest first, one page: the team's entries, then the keys' records in one BatchGet. */
export async function listTeamKeyRecords(teamId: string, limit: number, cursor?: string): Promise<{ keys: ApiKey[]; nextCursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': teamKeysPartition(teamId) },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: teamKeysPartition(teamId) }),
    }),
  );
  const ids = Items.map((i) => i.key_id as string);
  const records = await getItems(ids.map(recordKey));
  return {
    keys: ids.flatMap((id) => (records(recordKey(id)) ? [fromItem(records(recordKey(id)) as Record<string, unknown>)] : [])),
    nextCursor: encodeCursor(LastEvaluatedKey),
  };
}

/** The ids of one member's keys of a team (revoked ones included), every page. */
export async function teamKeyIdsOf(teamId: string, userId: string): Promise<string[]> {
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: 'user_id = :user',
        ExpressionAttributeValues: { ':pk': teamKeysPartition(teamId), ':user': userId },
        ProjectionExpression: 'key_id',
        ExclusiveStartKey: start,
      }),
    );
    ids.push(...(out.Items ?? []).map((i) => i.key_id as string));
    start = out.LastEvaluatedKey;
  } while (start);
  return ids;
}

/** A key as stored, with what a change needs besides the record: the hash its lookup is keyed by. */
export async function getApiKeyForChange(id: string): Promise<{ key: ApiKey; hash: string } | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: recordKey(id), ConsistentRead: true }));
  return Item ? { key: fromItem(Item), hash: Item.hash as string } : undefined;
}

/**
 * A change of a key's fields, to its record and its lookup together: conditional on the key not being
 * revoked (a revoked key stays as it was revoked).
 */
export function apiKeyUpdates(id: string, hash: string, fields: [string, unknown][]): TransactItems {
  const names = Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k]));
  const values = Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v]));
  const update = (Key: Record<string, string>): TransactItems[number] => ({
    Update: {
      TableName: TABLE,
      Key,
      UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      // revoked_at is stored as null until the key is revoked.
      ConditionExpression: 'attribute_exists(PK) AND attribute_type(revoked_at, :null)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':null': 'NULL' },
    },
  });
  return [update(recordKey(id)), update(lookupKey(hash))];
}
