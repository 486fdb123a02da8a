import * as anthropicMessages from '../dialects/anthropic-messages';
import type { MessagesCountTokensBody } from '../dialects/schemas/anthropic-messages';
import { countTokens, type TokenCount } from '../calls/count-tokens';
import { reply, withRates } from '../http/types';
import { chatCall, type GatewayInput } from './chat';

/** POST /v1/messages: Anthropic's Messages API (lib/dialects/anthropic-messages.ts), streamed or not, with Anthropic's errors. */
export const answerMessage = (input: GatewayInput<anthropicMessages.MessagesBody>) =>
  chatCall<anthropicMessages.MessagesBody, anthropicMessages.MessagesCall>(messagesDialect, input);

/** The dialect, with the end user a request names: `metadata.user_id`. */
const messagesDialect = {
  ...anthropicMessages,
  endUser: (body: anthropicMessages.MessagesBody) => ({ value: body.metadata?.user_id, param: 'metadata.user_id' }),
};

/**
 * A Messages request read for counting: as /v1/messages reads it (its checks, its betas), with no bound
 * on the answer, which counting does not need (a thinking budget is then never over it).
 */
function countedRequest(body: MessagesCountTokensBody, headers: anthropicMessages.MessagesHeaders = {}) {
  const { request, model } = anthropicMessages.parse({ ...body, max_tokens: Number.MAX_SAFE_INTEGER }, headers);
  const { maxTokens: _unbounded, ...input } = request;
  return { model, input };
}

/** The headers of a count: which resource's tokenizer counted, and whether the platform counted or the prompt's bound was given. */
export const countHeaders = (count: TokenCount) => ({
  'x-model-ops-resource': count.resource.endpoint_name,
  'x-model-ops-token-count': count.counted ? 'platform' : 'estimate',
});

/** POST /v1/messages/count_tokens: `{input_tokens}`, free, rate-limited like any call (lib/calls/count-tokens.ts). */
export async function countMessageTokens(input: GatewayInput<MessagesCountTokensBody>) {
  const { model, input: request } = countedRequest(input.body, input.event?.headers ?? {});
  const count = await countTokens(input, model, request);
  return withRates(reply(200, { input_tokens: count.inputTokens }, countHeaders(count)), count.rateReport);
}
