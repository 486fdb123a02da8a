import { endpoint } from '../../lib/http/endpoint';
import { createConversation } from '../../lib/conversations/service';
import { CreateConversationBody } from '../../generated/checks/conversations';

/** POST /api/conversations (docs/openapi.yaml createConversation): the caller's new conversation. */
export const handler = endpoint({ auth: 'user', body: CreateConversationBody }, async ({ body, user }) => {
  const { conversation_id, conversation } = await createConversation(user, body);
  return { conversation_id, conversation };
});
