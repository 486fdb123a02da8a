import { getConversation, getConversationWithThread } from '../../tables/conversations';
import { listLegacyMessages, listThreadMessages } from '../../tables/messages';
import type { User } from '../../tables/users';
import { NotFound } from '../errors';
import { readableConversation } from '../conversations/access';
import { chatTurn } from './turn';
import { toApiMessage } from '../conversations/view';

/** POST /api/chat/thread (docs/openapi.yaml chatThreadPost): the stored user message and the assistant reply. */
export async function threadChat(user: User, input: { message: string; conversationId: string; resourceId: string; threadId?: string }) {
  const turn = await chatTurn({ user, ...input, mode: 'thread' });
  return {
    threadId: turn.threadId as string,
    messages: [toApiMessage(turn.userMessage), toApiMessage(turn.assistantMessage)],
  };
}

/** POST /api/chat (docs/openapi.yaml chatLegacyPost; legacy): one exchange without thread context, counted like any turn. */
export async function legacyChat(user: User, input: { message: string; conversationId: string; resourceId: string }) {
  const turn = await chatTurn({ user, ...input, mode: 'legacy' });
  const reply = turn.assistantMessage;
  return {
    response: reply.content,
    metadata: {
      model_response_time: (reply.latency_ms ?? 0) / 1000,
      tokens_used: reply.tokens_total ?? 0,
      model_id: reply.model_id ?? '',
      user_id: user.id,
      username: user.username,
    },
  };
}

/**
 * GET /api/chat/thread: the thread's messages, oldest first. The conversation, the thread and the
 * page are read in parallel; the page is only shown once the caller may see the conversation and the
 * thread is known to be one of its own.
 */
export async function threadMessages(user: User, conversationId: string, threadId: string, limit: number, cursor?: string) {
  const [{ conversation, thread }, page] = await Promise.all([
    getConversationWithThread(conversationId, threadId),
    listThreadMessages(threadId, limit, cursor),
  ]);
  readableConversation(conversation, user);
  if (!thread) throw new NotFound('Thread not found');
  return { threadId, messages: page.messages.map((m) => toApiMessage(m)), nextCursor: page.nextCursor };
}

/** The marker GET /api/chat/legacy answers with in `source`: these messages are the thread-less store. */
const LEGACY_SOURCE = 'legacy';

/** GET /api/chat/legacy: the conversation's thread-less messages, oldest first. */
export async function legacyMessages(user: User, conversationId: string, limit: number, cursor?: string) {
  const [conversation, page] = await Promise.all([
    getConversation(conversationId, { consistent: true }),
    listLegacyMessages(conversationId, limit, cursor),
  ]);
  readableConversation(conversation, user);
  const messages = page.messages.map((m) => {
    const { role, content, timestamp, metadata, status } = toApiMessage(m);
    return status ? { role, content, timestamp, metadata, status } : { role, content, timestamp, metadata };
  });
  return { messages, source: LEGACY_SOURCE, count: messages.length, nextCursor: page.nextCursor };
}
