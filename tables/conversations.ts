import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItems } from './transactions';
import { TABLE, db, getItems, queryIndexPage } from './client';
import { attribute, defineEntity, type RecordOf } from './entity';

/**
 * Conversations and their threads (docs/openapi.yaml Conversation).
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

const CONVERSATION = defineEntity({
  id: attribute.as<string>(),
  user_id: attribute.as<string>(),
  title: attribute.as<string>(),
  use_case: attribute.as<string>(),
  deployed_resource: attribute.as<DeployedResourceRef>(),
  created_at: attribute.as<string>(),
  updated_at: attribute.as<string>(),
});

const THREAD = defineEntity({
  id: attribute.as<string>(),
  conversation_id: attribute.as<string>(),
  user_id: attribute.as<string>(),
  created_at: attribute.as<string>(),
});

export type Conversation = RecordOf<typeof CONVERSATION>;
export type Thread = RecordOf<typeof THREAD>;

export const conversationKey = (id: string) => ({ PK: `CONV#${id}`, SK: 'META' });
export const threadKey = (conversationId: string, threadId: string) => ({ PK: `CONV#${conversationId}`, SK: `THREAD#${threadId}` });
const userConversationsPartition = (userId: string) => `USERCONV#${userId}`;

export const conversationFromItem = (item: Record<string, unknown>): Conversation => CONVERSATION.read(item);
const threadFromItem = (item: Record<string, unknown>): Thread => THREAD.read(item);

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

/** A conversation; `consistent` where the caller must see a conversation created just before. */
export async function getConversation(id: string, options: { consistent?: boolean } = {}): Promise<Conversation | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: conversationKey(id), ConsistentRead: options.consistent }));
  return Item ? conversationFromItem(Item) : undefined;
}

/**
 * A conversation and one of its threads, in one strongly consistent BatchGet. The thread is found only
 * if it belongs to that conversation (its key lies in the conversation's partition).
 */
export async function getConversationWithThread(
  conversationId: string,
  threadId: string,
): Promise<{ conversation: Conversation | undefined; thread: Thread | undefined }> {
  const items = await getItems([conversationKey(conversationId), threadKey(conversationId, threadId)]);
  const conversation = items(conversationKey(conversationId));
  const thread = items(threadKey(conversationId, threadId));
  return { conversation: conversation ? conversationFromItem(conversation) : undefined, thread: thread ? threadFromItem(thread) : undefined };
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
 * The thread item, created by the turn that starts the thread (in its transaction; a new id must not
 * exist yet). It proves the thread belongs to its conversation and is never written again: nothing
 * reads a message count or a last-activity time, so turns keep no such bookkeeping.
 */
export function threadPut(input: { conversationId: string; threadId: string; userId: string; at: string }): TransactItems[number] {
  return {
    Put: {
      TableName: TABLE,
      Item: {
        ...threadKey(input.conversationId, input.threadId),
        entity: 'thread',
        id: input.threadId,
        conversation_id: input.conversationId,
        user_id: input.userId,
        created_at: input.at,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}
