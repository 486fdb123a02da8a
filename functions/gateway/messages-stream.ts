import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerMessage } from '../../lib/gateway/messages';
import { lookUpModel } from '../../lib/calls/resolve';
import { MessagesBody } from '../../generated/checks/gateway';

/** POST /v1/messages behind its Lambda function URL (RESPONSE_STREAM), which CloudFront routes it to: Anthropic's events sent as the model writes them. */
export const handler = keyEndpoint({ body: MessagesBody, dialect: 'anthropic', streaming: true, prefetch: lookUpModel }, answerMessage);
