import { keyEndpoint } from '../../lib/http/key-endpoint';
import { countMessageTokens } from '../../lib/gateway/messages';
import { lookUpModel } from '../../lib/calls/resolve';
import { MessagesCountTokensBody } from '../../generated/checks/gateway';

/** POST /v1/messages/count_tokens: Anthropic's token counting, the key in x-api-key or as a bearer token, Anthropic's errors. */
export const handler = keyEndpoint({ body: MessagesCountTokensBody, dialect: 'anthropic', prefetch: lookUpModel }, countMessageTokens);
