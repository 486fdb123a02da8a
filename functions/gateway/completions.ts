import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerCompletion } from '../../lib/gateway/completions';
import { lookUpModel } from '../../lib/calls/resolve';
import { ChatCompletionBody } from '../../generated/checks/gateway';

/**
 * POST /v1/chat/completions on the HTTP API: OpenAI's chat completion on a deployed resource, priced,
 * counted and within budget. API Gateway cannot stream, so `stream: true` gets the whole event stream
 * at once; the function URL (completions-stream.ts) streams it as it is generated.
 */
export const handler = keyEndpoint({ body: ChatCompletionBody, prefetch: lookUpModel }, answerCompletion);
