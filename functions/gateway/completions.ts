import { keyEndpoint } from '../../lib/http/key-endpoint';
import { reply } from '../../lib/http/endpoint';
import { completion } from '../../lib/gateway/completions';
import { ChatCompletionBody } from '../../generated/checks/gateway';

/** POST /v1/chat/completions: OpenAI's chat completion on a deployed resource, priced, counted and within budget. */
export const handler = keyEndpoint({ body: ChatCompletionBody }, async ({ body, key, user, requestId }) => {
  const { response, costUsd } = await completion({ body, key, user, requestId });
  return reply(200, response, { 'x-model-ops-cost-usd': costUsd.toFixed(6) });
});
