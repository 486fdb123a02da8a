import { countTokens } from '../calls/count-tokens';
import * as converse from '../dialects/bedrock-converse';
import * as invoke from '../dialects/bedrock-invoke';
import type { CountTokensBody } from '../dialects/schemas/bedrock';
import { BadRequest } from '../errors';
import { reply, withRates } from '../http/types';
import { chatCall, type GatewayInput } from './chat';
import { countHeaders } from './messages';

/**
 * The /bedrock door's InvokeModel and InvokeModelWithResponseStream with Claude's body
 * (lib/dialects/bedrock-invoke.ts), through the same metered chat call as /v1, the model named by the
 * path: a resource's (or a route's) name.
 */
const streaming = { ...invoke, parse: invoke.parseStream };

/** POST /bedrock/model/{modelId}/invoke: Anthropic's message as the body. */
export const answerInvoke = (input: GatewayInput<invoke.InvokeBody>, modelId: string) =>
  chatCall<invoke.InvokeInput, invoke.InvokeCall>(invoke, { ...input, body: { ...input.body, modelId } });

/** POST /bedrock/model/{modelId}/invoke-with-response-stream: Anthropic's events as the event stream's chunks. */
export const streamInvoke = (input: GatewayInput<invoke.InvokeBody>, modelId: string) =>
  chatCall<invoke.InvokeInput, invoke.InvokeCall>(streaming, { ...input, body: { ...input.body, modelId } });

/** The check InvokeModel's body gets (the handler's, from its request schema). */
export type InvokeBodyCheck = (value: unknown) => invoke.InvokeBody;

/** An InvokeModel body sent for counting (base64 JSON): checked as InvokeModel checks it. */
function invokeInput(base64: string, check: InvokeBodyCheck): invoke.InvokeBody {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    throw new BadRequest('input.invokeModel.body: not JSON (base64 of the InvokeModel body)', { param: 'input.invokeModel.body' });
  }
  return check(value);
}

/**
 * POST /bedrock/model/{modelId}/count-tokens: Bedrock's CountTokens, `{inputTokens}`, read as the
 * request it counts (Converse's, or InvokeModel's Claude body) and counted as /v1/messages/count_tokens
 * counts (lib/calls/count-tokens.ts): free, rate-limited, the platform's count or the prompt's bound.
 */
export async function countDoorTokens(input: GatewayInput<CountTokensBody>, modelId: string, checkInvoke: InvokeBodyCheck) {
  const body = input.body.input;
  const { model, request } =
    'converse' in body
      ? converse.parse({ ...body.converse, modelId })
      : invoke.parse({ ...invokeInput(body.invokeModel.body, checkInvoke), modelId });
  const { maxTokens: _unbounded, ...counted } = request;
  const count = await countTokens(input, model, counted);
  return withRates(reply(200, { inputTokens: count.inputTokens }, countHeaders(count)), count.rateReport);
}
