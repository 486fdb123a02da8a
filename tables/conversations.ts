import { BatchGetCommand, GetCommand, PutCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { TransactItems } from './transactions';
import { TABLE, db, queryIndexPage } from './client';

/**
 * Conversations and their threads (spec 2.7, 4.5).
 *
 *   PK CONV#<id>       SK META               the conversation (GSI1: USERCONV#<userId> / <created_at>#<id>)
 *   PK CONV#<convId>   SK THREAD#<threadId>  a thread of the conversation
 *
 * A thread lives in its conversation's partition on purpose: reading CONV#<c> / THREAD#<t> finds the
 * thread only if it belongs to that conversation, so membership needs no extra check or read.
 */

export interface DeployedResourceRef {
  resource_name: string;
  resource_type: string;
  cloud_resource_id: string;
  region: string;
  estimated_hourly_cost: number;
}

export interface Conversation {
  id: string;
  user_id: string;
  title: string;
  use_case: string;
  deployed_resource: DeployedResourceRef;
  created_at: string;
  updated_at: string;
}

export interface Thread {
  id: string;
  conversation_id: string;
  user_id: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  last_resource_id: string | null;
}

export const conversationKey = (id: string) => ({ PK: `CONV#${id}`, SK: 'META' });
export const threadKey = (conversationId: string, threadId: string) => ({ PK: `CONV#${conversationId}`, SK: `THREAD#${threadId}` });
const userConversationsPartition = (userId: string) => `USERCONV#${userId}`;

const CONVERSATION_FIELDS = ['id', 'user_id', 'title', 'use_case', 'deployed_resource', 'created_at', 'updated_at'] as const;
const THREAD_FIELDS = ['id', 'conversation_id', 'user_id', 'created_at', 'updated_at', 'message_count', 'last_resource_id'] as const;

export function conversationFromItem(item: Record<string, unknown>): Conversation {
  return Object.fromEntries(CONVERSATION_FIELDS.map((f) => [f, item[f] ?? null])) as unknown as Conversation;
}

export function threadFromItem(item: Record<string, unknown>): Thread {
  const thread = Object.fromEntries(THREAD_FIELDS.map((f) => [f, item[f] ?? null])) as unknown as Thread;
  thread.message_count = Number(thread.message_count ?? 0);
  return thread;
}

export async function createConversation(conversation: Conversation): Promise<Conversation> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: {
        ...conversationKey(conversation.id),
        GSI1PK: userConversationsPartition(conversation.user_id),
        GSI1SK: `${conversation.created_at}#${conversation.id}`,
        entity: 'conversation',
        ...conversation,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return conversation;
}

export async function getConversation(id: string): Promise<Conversation | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: conversationKey(id) }));
  return Item ? conversationFromItem(Item) : undefined;
}

/** The user's conversations, newest first. */
export async function listConversationsOfUser(
  userId: string,
  limit: number,
  cursor?: string,
): Promise<{ conversations: Conversation[]; nextCursor: string | null }> {
  const { items, nextCursor } = await queryIndexPage(userConversationsPartition(userId), { forward: false, limit, cursor });
  return { conversations: items.map(conversationFromItem), nextCursor };
}

/**
 * The thread part of a turn's transaction: creates the thread (a new id must not exist yet) or
 * touches an existing one (which must still exist), and counts the messages the turn adds.
 */
export function threadWrite(input: {
  conversationId: string;
  threadId: string;
  userId: string;
  resourceId: string;
  isNew: boolean;
  at: string;
  addMessages: number;
}): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: threadKey(input.conversationId, input.threadId),
      UpdateExpression:
        'SET id = :id, conversation_id = :c, user_id = if_not_exists(user_id, :u), created_at = if_not_exists(created_at, :at), ' +
        'updated_at = :at, last_resource_id = :r, entity = :e ADD message_count :n',
      ConditionExpression: input.isNew ? 'attribute_not_exists(PK)' : 'attribute_exists(PK)',
      ExpressionAttributeValues: {
        ':id': input.threadId,
        ':c': input.conversationId,
        ':u': input.userId,
        ':at': input.at,
        ':r': input.resourceId,
        ':e': 'thread',
        ':n': input.addMessages,
      },
    },
  };
}

export type ItemKey = { PK: string; SK: string };
export type ItemsByKey = (key: ItemKey) => Record<string, unknown> | undefined;

/**
 * One BatchGet of items of several entities, keys built by their modules (the conversation, the
 * resource and the thread of a chat turn; a conversation and its usage buckets). Unprocessed keys
 * are asked for again, so the answer is complete; in the normal case it is one round trip.
 */
export async function getItems(keys: ItemKey[], consistent = true): Promise<ItemsByKey> {
  const found = new Map<string, Record<string, unknown>>();
  const id = (k: { PK: unknown; SK: unknown }) => `${String(k.PK)}\u0000${String(k.SK)}`;
  const unique = [...new Map(keys.map((k) => [id(k), k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(i, i + 100);
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(500, 10 * 2 ** attempt) * Math.random()));
      const out: BatchGetCommandOutput = await db.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: pending, ConsistentRead: consistent } } }));
      for (const item of out.Responses?.[TABLE] ?? []) found.set(id(item as ItemKey), item);
      pending = out.UnprocessedKeys?.[TABLE]?.Keys;
    }
  }
  return (key) => found.get(id(key));
}
