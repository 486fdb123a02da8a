/**
 * Bedrock's CountTokens for a managed model: the input tokens a Converse request would be billed for,
 * counted by the model's own tokenizer, free of charge.
 *
 * Only some models count, by their bare foundation-model id: AWS's "Supported models and Regions for
 * token counting" table (Bedrock user guide, count-tokens) names Claude 3.5 Haiku, 3.5 Sonnet and 3.5
 * Sonnet v2, 3.7 Sonnet, Opus 4 and Sonnet 4. Models launched through cross-Region profiles only
 * (Claude 4.5 and later) are not counted on bedrock-runtime. Elsewhere, and where a Region refuses a
 * model (ValidationException), the answer is undefined and the caller estimates instead.
 */
import { CountTokensCommand, type BedrockRuntimeClient, type ConverseTokensRequest } from '@aws-sdk/client-bedrock-runtime';
import { errorMessage, errorName, guard } from '../errors';
import type { ChatRequest } from '../types';
import { baseModelId } from './features';

const COUNTS_TOKENS =
  /^anthropic\.claude-(3-5-haiku-20241022|3-5-sonnet-20240620|3-5-sonnet-20241022|3-7-sonnet-20250219|opus-4-20250514|sonnet-4-20250514)-/;

/** Whether Bedrock's CountTokens counts for a model (a profile id counts as its foundation model). */
const countsTokens = (modelId: string): boolean => COUNTS_TOKENS.test(baseModelId(modelId));

/** The Converse request's input tokens by CountTokens, or undefined where the model is not counted. */
export async function countConverseTokens(
  runtime: BedrockRuntimeClient,
  request: ChatRequest,
  converse: ConverseTokensRequest,
): Promise<number | undefined> {
  const modelId = baseModelId(request.model ?? request.target);
  if (!countsTokens(modelId)) return undefined;
  const out = await guard('managed', async () => {
    try {
      return await runtime.send(new CountTokensCommand({ modelId, input: { converse } }));
    } catch (err) {
      // A Region that does not count for the model: estimated instead, as for a model that never counts.
      if (errorName(err) === 'ValidationException' && /count/i.test(errorMessage(err))) return undefined;
      throw err;
    }
  });
  return out?.inputTokens;
}
