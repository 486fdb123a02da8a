import { endpoint } from '../../lib/http/endpoint';
import { listConversationMessages } from '../../lib/conversations/service';
import { ConversationMessagesQuery, ConversationPath } from '../../generated/checks/conversations';

/** GET /api/conversations/{id}/messages: every message of the conversation, threads and legacy, oldest first. */
export const handler = endpoint({ auth: 'user', path: ConversationPath, query: ConversationMessagesQuery }, async ({ path, query, user }) => {
  const { messages, nextCursor } = await listConversationMessages(user, path.id, query.limit, query.cursor);
  return { conversationId: path.id, messages, count: messages.length, nextCursor };
});
