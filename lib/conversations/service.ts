import { randomUUID } from 'node:crypto';
import {
  createConversation as insertConversation,
  getConversation as readConversation,
  listConversationsOfUser,
  type DeployedResourceRef,
} from '../../tables/conversations';
import { listConversationMessages as readConversationMessages } from '../../tables/messages';
import type { User } from '../../tables/users';
import { toApiMessage } from './view';
import { readableConversation } from './access';

export interface NewConversation {
  title: string;
  use_case: string;
  deployed_resource: DeployedResourceRef;
}

/** POST /api/conversations (docs/openapi.yaml createConversation; docs/openapi.yaml Conversation). */
export async function createConversation(user: User, input: NewConversation, now = new Date()) {
  const at = now.toISOString();
  const conversation = await insertConversation({
    id: randomUUID(),
    user_id: user.id,
    title: input.title.trim(),
    use_case: input.use_case.trim(),
    deployed_resource: { ...input.deployed_resource },
    created_at: at,
    updated_at: at,
  });
  return { conversation_id: conversation.id, conversation };
}

/** The caller's own conversations, newest first. */
export function listConversations(user: User, limit: number, cursor?: string) {
  return listConversationsOfUser(user.id, limit, cursor);
}

/**
 * Every message of a conversation, threads and legacy, oldest first. The page is read in parallel
 * with the conversation and only returned once the caller is known to be allowed to see it.
 */
export async function listConversationMessages(user: User, conversationId: string, limit: number, cursor?: string) {
  const [conversation, page] = await Promise.all([readConversation(conversationId), readConversationMessages(conversationId, limit, cursor)]);
  readableConversation(conversation, user);
  return { messages: page.messages.map((m) => toApiMessage(m, { origin: true })), nextCursor: page.nextCursor };
}
