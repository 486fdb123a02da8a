import { endpoint } from '../../lib/http/endpoint';
import { legacyMessages } from '../../lib/chat/service';
import { LegacyQuery } from '../../generated/checks/chat';

/** GET /api/chat/legacy (docs/openapi.yaml chatLegacyGet; legacy): the conversation's thread-less messages, oldest first. */
export const handler = endpoint({ auth: 'user', query: LegacyQuery }, async ({ query, user }) =>
  legacyMessages(user, query.conversationId, query.limit, query.cursor),
);
