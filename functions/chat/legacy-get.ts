import { endpoint } from '../../lib/http/endpoint';
import { legacyMessages } from '../../lib/chat/service';
import { LegacyQuery } from '../../generated/checks/chat';

/** GET /api/chat/legacy (spec 4.5, legacy): the conversation's thread-less messages, oldest first. */
export const handler = endpoint({ auth: 'user', query: LegacyQuery }, async ({ query, user }) =>
  legacyMessages(user, query.conversationId, query.limit, query.cursor),
);
