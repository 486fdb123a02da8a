import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerResponse } from '../../lib/gateway/responses';
import { lookUpModel } from '../../lib/calls/resolve';
import { ResponsesBody } from '../../generated/checks/gateway';

/** POST /v1/responses behind its Lambda function URL (RESPONSE_STREAM), which CloudFront routes it to: the Responses events sent as the model writes them. */
export const handler = keyEndpoint({ body: ResponsesBody, streaming: true, prefetch: lookUpModel }, answerResponse);
