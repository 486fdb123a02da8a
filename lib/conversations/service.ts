import { randomUUID } from 'node:crypto';
import * as conversations from '../../tables/conversations';
import * as messages from '../../tables/messages';
import type { User } from '../../tables/users';
import { toApiMessage } from '../chat/view';
import { readableConversation } from './access';

export interface NewConversation {
  title: string;
  use_case: string;
  deployed_resource: conversations.DeployedResourceRef;
}

/** POST /api/conversations (spec 4.7, 2.7). */
export async function createConversation(user: User, input: NewConversation, now = new Date()) {
  const at = now.toISOString();
  const conversation = await conversations.createConversation({
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
  return conversations.listConversationsOfUser(user.id, limit, cursor);
}

export async function getConversation(user: User, conversationId: string) {
  return readableConversation(await conversations.getConversation(conversationId), user);
}

/**
 * Every message of a conversation, threads and legacy, oldest first. The page is read in parallel
 * with the conversation and only returned once the caller is known to be allowed to see it.
 */
export async function listConversationMessages(user: User, conversationId: string, limit: number, cursor?: string) {
  const [conversation, page] = await Promise.all([
    conversations.getConversation(conversationId),
    messages.listConversationMessages(conversationId, limit, cursor),
  ]);
  readableConversation(conversation, user);
  return { messages: page.messages.map((m) => toApiMessage(m, { origin: true })), nextCursor: page.nextCursor };
}
