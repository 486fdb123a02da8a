import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItems } from './transactions';
import { TABLE, db, decodeCursor, encodeCursor, queryIndexPage } from './client';

/**
 * Chat messages (spec 2.4), thread and legacy.
 *
 *   PK THREAD#<threadId>   SK MSG#<ts>#<turnId>#<0 user / 1 assistant>   GSI1 CONVMSG#<convId> / <ts>#<turnId>#<n>
 *   PK LEGACY#<convId>     SK MSG#<ts>#<turnId>#<n>                      GSI1 CONVMSG#<convId> / <ts>#<turnId>#<n>
 *
 * `ts` is the turn's start (when the user message arrived) and `turnId` a fresh UUID, so the two
 * messages of a turn sort next to each other, concurrent turns still have a total order (by time,
 * then id), and no two turns can ever write the same key. GSI1 puts every message of a
 * conversation, thread or legacy, in one time-ordered partition.
 */

export type MessageSource = 'thread' | 'legacy';
export type MessageStatus = 'ok' | 'failed';

export interface StoredMessage {
  source: MessageSource;
  conversation_id: string;
  /** null for legacy messages. */
  thread_id: string | null;
  turn_id: string;
  /** 0 = the user message of the turn, 1 = the assistant reply. */
  seq: 0 | 1;
  /** The turn's timestamp, as in the key (the user message's time). */
  turn_ts: string;
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  metadata: Record<string, unknown>;
  /** 'failed': a user message whose model call failed; it got no reply and counted no usage. */
  status: MessageStatus;
  user_id: string;
  resource_id: string;
  tokens_in?: number;
  tokens_out?: number;
  tokens_total?: number;
  latency_ms?: number;
  model_id?: string;
}

const FIELDS = [
  'source',
  'conversation_id',
  'thread_id',
  'turn_id',
  'seq',
  'turn_ts',
  'role',
  'content',
  'timestamp',
  'metadata',
  'status',
  'user_id',
  'resource_id',
  'tokens_in',
  'tokens_out',
  'tokens_total',
  'latency_ms',
  'model_id',
] as const;

const threadPartition = (threadId: string) => `THREAD#${threadId}`;
const legacyPartition = (conversationId: string) => `LEGACY#${conversationId}`;
const conversationMessagesPartition = (conversationId: string) => `CONVMSG#${conversationId}`;
const sortSuffix = (m: Pick<StoredMessage, 'turn_ts' | 'turn_id' | 'seq'>) => `${m.turn_ts}#${m.turn_id}#${m.seq}`;

/** The full item of a message, keys included (also used by the benchmark to seed history). */
export function messageItem(m: StoredMessage): Record<string, unknown> {
  const PK = m.source === 'thread' ? threadPartition(m.thread_id as string) : legacyPartition(m.conversation_id);
  return {
    PK,
    SK: `MSG#${sortSuffix(m)}`,
    GSI1PK: conversationMessagesPartition(m.conversation_id),
    GSI1SK: sortSuffix(m),
    entity: 'message',
    ...m,
  };
}

export function messageFromItem(item: Record<string, unknown>): StoredMessage {
  const m = Object.fromEntries(FIELDS.filter((f) => item[f] !== undefined).map((f) => [f, item[f]])) as unknown as StoredMessage;
  m.thread_id ??= null;
  m.metadata ??= {};
  m.status ??= 'ok';
  return m;
}

/** A message put for a turn's transaction. The key is new by construction; the condition makes sure. */
export function messagePut(m: StoredMessage): TransactItems[number] {
  return { Put: { TableName: TABLE, Item: messageItem(m), ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** The lone write of a failed turn: the user's text is kept, marked failed. */
export async function putMessage(m: StoredMessage): Promise<void> {
  await db.send(new PutCommand({ TableName: TABLE, Item: messageItem(m), ConditionExpression: 'attribute_not_exists(PK)' }));
}

/**
 * The newest `limit` messages of a thread, newest first, strongly consistent so a turn sees every
 * turn that completed before it started.
 */
export async function recentThreadMessages(threadId: string, limit: number): Promise<StoredMessage[]> {
  if (limit <= 0) return [];
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :p AND begins_with(SK, :m)',
      ExpressionAttributeValues: { ':p': threadPartition(threadId), ':m': 'MSG#' },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return Items.map(messageFromItem);
}

export interface MessagePage {
  messages: StoredMessage[];
  nextCursor: string | null;
}

async function pageOfPartition(partition: string, limit: number, cursor: string | undefined): Promise<MessagePage> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :p AND begins_with(SK, :m)',
      ExpressionAttributeValues: { ':p': partition, ':m': 'MSG#' },
      ScanIndexForward: true,
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: partition }),
    }),
  );
  return { messages: Items.map(messageFromItem), nextCursor: encodeCursor(LastEvaluatedKey) };
}

/** A thread's messages, oldest first. */
export function listThreadMessages(threadId: string, limit: number, cursor?: string): Promise<MessagePage> {
  return pageOfPartition(threadPartition(threadId), limit, cursor);
}

/** A conversation's legacy (thread-less) messages, oldest first. */
export function listLegacyMessages(conversationId: string, limit: number, cursor?: string): Promise<MessagePage> {
  return pageOfPartition(legacyPartition(conversationId), limit, cursor);
}

/** Every message of a conversation, threads and legacy, oldest first (GSI1). */
export async function listConversationMessages(conversationId: string, limit: number, cursor?: string): Promise<MessagePage> {
  const { items, nextCursor } = await queryIndexPage(conversationMessagesPartition(conversationId), { forward: true, limit, cursor });
  return { messages: items.map(messageFromItem), nextCursor };
}
