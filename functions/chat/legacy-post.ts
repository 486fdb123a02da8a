import { endpoint } from '../../lib/http/endpoint';
import { legacyChat } from '../../lib/chat/service';
import { LegacyChatBody } from '../../generated/checks/chat';

/** POST /api/chat (docs/openapi.yaml chatLegacyPost; legacy): one exchange without thread context. */
export const handler = endpoint({ auth: 'user', body: LegacyChatBody, platformFailures: 500 }, async ({ body, user }) => legacyChat(user, body));
