import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { gunzipSync, gzipSync } from 'node:zlib';
import { TABLE, db, deleteItems, queryPartition } from './client';

/**
 * Stored responses of the Responses API (/v1/responses with `store`, the API's default): what
 * `GET /v1/responses/{id}` answers and what `previous_response_id` continues. They are the key's
 * owner's data, kept under the key that made them, so another key never finds them and revoking the
 * key deletes them with one Query of its partition:
 *
 *   PK RESPONSES#<keyId>   SK RESP#<responseId>   one response (entity `response`): the owner, when,
 *       DynamoDB's `ttl` (RESPONSES_TTL_DAYS), and the response and the conversation it ended
 *       (`data`: JSON, gzipped, as a conversation grows with each turn and an item holds 400 KB)
 *
 * TTL deletion runs within a few days of the expiry, not at it, so reads treat an expired item as gone.
 */

export interface StoredResponse<T> {
  id: string;
  keyId: string;
  userId: string;
  createdAt: string;
  /** Unix seconds after which the response is gone. */
  expiresAt: number;
  data: T;
}

const partition = (keyId: string) => `RESPONSES#${keyId}`;
const itemKey = (keyId: string, id: string) => ({ PK: partition(keyId), SK: `RESP#${id}` });

/** An item holds 400 KB with its names; what is left for the data, with room to spare. */
const MAX_STORED_BYTES = 380_000;

/** Stores a response; false when its compressed data is too large for one item (nothing is written). */
export async function putStoredResponse<T>(response: StoredResponse<T>): Promise<boolean> {
  const data = gzipSync(JSON.stringify(response.data));
  if (data.length > MAX_STORED_BYTES) return false;
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: {
        ...itemKey(response.keyId, response.id),
        entity: 'response',
        id: response.id,
        user_id: response.userId,
        created_at: response.createdAt,
        ttl: response.expiresAt,
        data,
      },
    }),
  );
  return true;
}

/** A key's stored response, strongly consistent (a client continues at once); undefined when there is none or it expired. */
export async function getStoredResponse<T>(keyId: string, id: string, now = new Date()): Promise<StoredResponse<T> | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: itemKey(keyId, id), ConsistentRead: true }));
  if (!Item || Number(Item.ttl) <= now.getTime() / 1000) return undefined;
  return {
    id: String(Item.id),
    keyId,
    userId: String(Item.user_id),
    createdAt: String(Item.created_at),
    expiresAt: Number(Item.ttl),
    data: JSON.parse(gunzipSync(Item.data as Uint8Array).toString('utf8')) as T,
  };
}

/** Deletes a key's stored response; false when there was none (or it had expired). */
export async function deleteStoredResponse(keyId: string, id: string, now = new Date()): Promise<boolean> {
  const { Attributes } = await db.send(new DeleteCommand({ TableName: TABLE, Key: itemKey(keyId, id), ReturnValues: 'ALL_OLD' }));
  return Attributes !== undefined && Number(Attributes.ttl) > now.getTime() / 1000;
}

/** Deletes every response a key stored (its revocation): one Query of its partition, keys only, then batches of deletes. */
export async function deleteKeysStoredResponses(keyId: string): Promise<number> {
  const items = await queryPartition(partition(keyId), { prefix: 'RESP#', projection: 'PK, SK' });
  await deleteItems(items.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
  return items.length;
}
