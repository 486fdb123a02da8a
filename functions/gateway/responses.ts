import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerResponse } from '../../lib/gateway/responses';
import { lookUpModel } from '../../lib/calls/resolve';
import { ResponsesBody } from '../../generated/checks/gateway';

/** POST /v1/responses: OpenAI's Responses API (stateless: nothing is stored), priced, counted and within budget. */
export const handler = keyEndpoint({ body: ResponsesBody, prefetch: lookUpModel }, answerResponse);
