import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerCompletion } from '../../lib/gateway/completions';
import { lookUpModel } from '../../lib/calls/resolve';
import { ChatCompletionBody } from '../../generated/checks/gateway';

/**
 * POST /v1/chat/completions behind the Lambda function URL (invokeMode RESPONSE_STREAM) that CloudFront
 * routes it to: the same answer as completions.ts, with `stream: true` sent chunk by chunk as the
 * model generates it.
 */
export const handler = keyEndpoint({ body: ChatCompletionBody, streaming: true, prefetch: lookUpModel }, answerCompletion);
