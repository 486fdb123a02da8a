import { randomUUID } from 'node:crypto';
import type { ApiKey } from '../../tables/keys';
import { reportingRates, type RateNews } from '../budgets/rate-limits';
import { holdAll, promptTokenBound } from '../budgets/reservations';
import { BadRequest } from '../errors';
import { capabilitiesOf } from '../platforms/capabilities';
import { chatOf } from '../platforms/chat';
import { traitsOf } from '../platforms/registry';
import type { ChatRequest } from '../platforms/types';
import { rateLimitsOf, refusalOf, type Payer } from './levels';
import { resolveTarget, type NameLookup } from './resolve';

/**
 * Counting a request's input tokens (Anthropic's POST /v1/messages/count_tokens, Bedrock's
 * CountTokens through the /bedrock door): free, but a call like any other for who may make it and how
 * often.
 *
 *   1. the model is resolved as a metered call resolves it: a resource the key and its owner may use,
 *      or a route, which counts with its first usable target (the tokenizer of the model it would try
 *      first);
 *   2. the request is admitted on every rate-limited level (the key, its teams): one request counted in
 *      the minute, no tokens (nothing is generated), so `rpm` counts it and `tpm` does not; no budget
 *      is held and no spend recorded, as counting costs nothing on the platforms either;
 *   3. the platform counts, where the model has counting (Bedrock's CountTokens:
 *      lib/platforms/managed/count-tokens.ts); elsewhere the answer is the prompt's bound, the same
 *      figure a call's hold reserves for its input (promptTokenBound: an upper bound, never less than
 *      what the call will be billed for).
 */
export interface TokenCount {
  inputTokens: number;
  /** Whether the platform counted (true) or the bound was given (false). */
  counted: boolean;
  /** The resource whose tokenizer counted. */
  resource: { endpoint_name: string };
  /** What its admission found of the caller's rate windows (absent: no limit applies). */
  rateReport?: RateNews;
}

export async function countTokens(
  caller: { key: ApiKey; payer: Payer; prefetched?: Promise<NameLookup> },
  model: string,
  input: Omit<ChatRequest, 'target' | 'maxTokens'>,
): Promise<TokenCount> {
  const { key, payer } = caller;
  const target = await resolveTarget(key, payer.user, model, caller.prefetched);
  const resource = target.route ? (target.resources[0] as (typeof target.resources)[number]) : target.resource;
  const can = capabilitiesOf(resource);
  if (!can.chat) {
    throw new BadRequest(`The model '${resource.endpoint_name}' cannot chat, so it counts no chat tokens`, {
      code: 'model_not_capable',
      param: 'model',
    });
  }
  const limits = rateLimitsOf(payer);
  const rateReport =
    limits.length > 0
      ? (await holdAll({ budgets: [], limits, amount: 0, tokens: 0, callId: randomUUID(), now: new Date(), refusal: refusalOf(payer) })).report
      : undefined;
  const request: ChatRequest = { ...input, target: traitsOf(resource.type).target(resource), model: resource.model_id };
  const counted = await chatOf(resource.type)
    .countTokens?.(request)
    .catch((err: unknown) => {
      throw reportingRates(err, rateReport);
    });
  const reported = rateReport && { rateReport };
  return counted === undefined
    ? { inputTokens: promptTokenBound(request), counted: false, resource, ...reported }
    : { inputTokens: counted, counted: true, resource, ...reported };
}
