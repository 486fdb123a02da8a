import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerMessage } from '../../lib/gateway/messages';
import { lookUpModel } from '../../lib/calls/resolve';
import { MessagesBody } from '../../generated/checks/gateway';

/** POST /v1/messages: Anthropic's Messages API, the key in x-api-key or as a bearer token, Anthropic's errors. */
export const handler = keyEndpoint({ body: MessagesBody, dialect: 'anthropic', prefetch: lookUpModel }, answerMessage);
