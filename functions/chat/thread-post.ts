import { endpoint } from '../../lib/http/endpoint';
import { threadChat } from '../../lib/chat/service';
import { ThreadChatBody } from '../../generated/checks/chat';

/** POST /api/chat/thread (docs/openapi.yaml chatThreadPost): a turn in a thread; without threadId a new thread is started. */
export const handler = endpoint({ auth: 'user', body: ThreadChatBody, errorShape: 'thread', platformFailures: 500 }, async ({ body, user }) =>
  threadChat(user, body),
);
