import { endpoint } from '../../lib/http/endpoint';
import { threadMessages } from '../../lib/chat/service';
import { ThreadQuery } from '../../generated/checks/chat';

/** GET /api/chat/thread (docs/openapi.yaml chatThreadGet): the thread's messages, oldest first. */
export const handler = endpoint({ auth: 'user', query: ThreadQuery, errorShape: 'thread' }, async ({ query, user }) =>
  threadMessages(user, query.conversationId, query.threadId, query.limit, query.cursor),
);
