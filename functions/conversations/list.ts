import { endpoint } from '../../lib/http/endpoint';
import { listConversations } from '../../lib/conversations/service';
import { ListConversationsQuery } from '../../generated/checks/conversations';

/** GET /api/conversations: the caller's own conversations, newest first, paginated with a cursor. */
export const handler = endpoint({ auth: 'user', query: ListConversationsQuery }, async ({ query, user }) => {
  const { conversations, nextCursor } = await listConversations(user, query.limit, query.cursor);
  return { conversations, count: conversations.length, nextCursor };
});
