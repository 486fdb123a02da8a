import { randomUUID } from 'node:crypto';
import type { Nanos } from '../../core/money';
import { config } from '../../core/config';
import { MetricUnit, dimensionedMetric } from '../../core/observability';
import type { Reservation, SpendSettle } from '../../tables/budgets';
import type { RateHold } from '../../tables/rates';
import type { Resource } from '../../tables/resources';
import { reportingRates, type RateNews } from '../budgets/rate-limits';
import { embeddingTokenBound, holdAll, promptTokenBound, releaseHeld, settlesOf, type Budget } from '../budgets/reservations';
import { BadRequest, NotInService, UpstreamError } from '../errors';
import { serviceTierOf } from './tiers';
import { betasOf, capabilitiesOf, maxOutputTokensOf, reasoningOf, takesDocuments, takesTopK } from '../platforms/capabilities';
import { ensureMayCall } from './access';
import { chatOf } from '../platforms/chat';
import { endpointsOf } from '../platforms/endpoints';
import { checkJsonOutput, regexInSchema } from '../platforms/json-output';
import { traitsOf } from '../platforms/registry';
import {
  cacheCheckpoints,
  reasoningBound,
  type CacheTokens,
  type ChatCapable,
  type ChatReply,
  type ChatRequest,
  type EmbeddingReply,
  type EmbeddingRequest,
  type EndpointDescription,
  type FinishReason,
  type ServiceTier,
} from '../platforms/types';
import { explainProfileFailure, profileMissingError } from './profile-failure';
import { callCost, getTokenPrice, type PricedUsage, type ResolvedTokenPrice } from '../pricing/service';
import { budgetsOf, rateLimitsOf, refusalOf, type Payer } from './levels';

/**
 * The one metered model call. Every call that costs money goes through it: the session chat turn,
 * legacy chat, the gateway's completions streamed or not, and the other gateway dialects. The rules
 * of a call exist here once:
 *
 *   1. the model must be able to answer now (`NotInService` otherwise: one check, one error);
 *   2. its price, if its platform bills per token (PlatformTraits.billing);
 *   3. an upper bound of its cost reserved on every level that has a budget (the key, the user, each
 *      team it counts in and the user's budget within it: lib/calls/levels.ts), and a request and a
 *      token bound on every rate-limited level (the key, the teams), all or none, in ONE conditional
 *      write before the model is asked (BudgetExceeded, TooManyRequests rate_limit_exceeded);
 *   4. the model asked (answer, or openStream for a stream: lib/calls/stream.ts); a failure gives the
 *      reservations back, and on a platform with endpoints says so if the endpoint left service;
 *      what the holds found of the caller's rate windows comes back with the prepared call
 *      (`rateReport`), and with a refusal or a failure as the error's (lib/budgets/rate-limits.ts
 *      reportingRates), for the /v1 answers' x-ratelimit-* headers;
 *   5. the settlement: tokens, latency and cost clamped and priced, and what each budget owner's spend
 *      item gets (settlementOf). The entry point records it with what it stores: the chat turn its
 *      turn item and counters in one transaction (tables/writes/turns.ts), the gateway one pending item
 *      settled from the table's stream (tables/calls.ts).
 *
 * What an entry point declares is only its own: how it resolved the resource (a conversation's
 * resource id, a /v1 model name), its wire dialect and framing, and what it stores.
 */

export type { Payer } from './levels';

/** What every metered call holds between its reservation and its settlement, whatever it asks the model. */
export interface MeteredCall {
  callId: string;
  started: Date;
  payer: Payer;
  resource: Resource;
  /** Absent on platforms billed by the hour: their calls cost nothing more. */
  price?: ResolvedTokenPrice;
  budgets: Budget[];
  reservations: Reservation[];
  /** The rate windows it took a request and its token bound from, settled to its true tokens. */
  rates: RateHold[];
  /** What its holds found of the caller's rate windows (absent: no limit applies). */
  rateReport?: RateNews;
  /** The processing tier it asked for (absent: the platform's default). */
  serviceTier?: ServiceTier;
}

/** A chat call, prepared. */
export interface PreparedCall extends MeteredCall {
  platform: ChatCapable;
  request: ChatRequest;
  /**
   * The input tokens reserved for it (promptTokenBound: text, images, tools, the output schema): what
   * a stream cut off before the platform reported its usage is charged as input (lib/calls/stream.ts).
   */
  inputBound: number;
  /** The betas the caller asked for that the model does not take on its platform: dropped, and told (the dialect's header). */
  droppedBetas: string[];
}

/** An embeddings call, prepared (its platform: lib/platforms/embeddings.ts, which only its entry point bundles). */
export interface PreparedEmbedding extends MeteredCall {
  request: EmbeddingRequest;
}

/**
 * The request's fields, as the caller's dialect names them, for the refusal of a feature the model
 * lacks (OpenAI's chat: tools, response_format, messages; Responses: tools, text.format, input), and
 * of an output schema the service will not run (`outputSchema`: where the schema itself sits).
 */
export interface FeatureFields {
  tools: string;
  outputFormat: string;
  outputSchema: string;
  images: string;
  /** Where reasoning is asked for (Anthropic's thinking, OpenAI's reasoning_effort, the Responses API's reasoning). */
  reasoning?: string;
  /** Where documents are sent (default: where images are). */
  documents?: string;
}

const OPENAI_CHAT_FIELDS: FeatureFields = {
  tools: 'tools',
  outputFormat: 'response_format',
  outputSchema: 'response_format.json_schema.schema',
  images: 'messages',
  reasoning: 'reasoning_effort',
};

const hasPart = (request: Pick<ChatRequest, 'messages'>, type: 'image' | 'document') =>
  request.messages.some((m) => typeof m.content !== 'string' && m.content.some((p) => p.type === type));

/**
 * A request for what the model cannot do is refused before anything is reserved or asked, naming the
 * model and the field (ModelCapabilities, recorded at deploy: lib/platforms/capabilities.ts).
 */
function checkCapabilities(resource: Resource, request: Omit<ChatRequest, 'target'>, fields: FeatureFields): void {
  const can = capabilitiesOf(resource);
  const refuse = (what: string, param: string) =>
    new BadRequest(`The model '${resource.endpoint_name}' ${what}`, { code: 'model_not_capable', param });
  if (!can.chat) throw refuse(can.embeddings ? 'is an embedding model: it cannot chat (POST /v1/embeddings)' : 'cannot chat', 'model');
  if (request.tools?.length && !can.tools) throw refuse('does not support tools (function calling)', fields.tools);
  if (request.outputFormat && !can.jsonOutput) throw refuse('does not support structured output (JSON)', fields.outputFormat);
  if (!can.imageInput && hasPart(request, 'image')) throw refuse('does not accept images: send text only', fields.images);
  if (!takesDocuments(resource) && hasPart(request, 'document'))
    throw refuse('does not read documents (PDF, text): send their text as text', fields.documents ?? fields.images);
  const reasons = reasoningOf(resource);
  if (request.reasoning && !reasons) throw refuse('does not reason: send the request without reasoning', fields.reasoning ?? 'reasoning');
  if (request.reasoning?.adaptive && reasons !== 'adaptive')
    throw refuse('has no adaptive thinking: give a budget (thinking.type enabled)', fields.reasoning ?? 'reasoning');
  if (request.topK !== undefined && !takesTopK(resource)) throw refuse('does not sample with top_k', 'top_k');
  checkOutputSchema(request, fields);
}

/** A JSON answer's schema must hold no regular expression (why: regexInSchema in lib/platforms/json-output.ts). */
function checkOutputSchema(request: Omit<ChatRequest, 'target'>, fields: FeatureFields): void {
  const format = request.outputFormat;
  const regex = format?.type === 'json_schema' ? regexInSchema(format.schema) : undefined;
  if (!regex) return;
  const keyword = regex.slice(regex.lastIndexOf('.') + 1);
  const param = `${fields.outputSchema}.${regex}`;
  // The path is in the message too: Anthropic's error shape has no param.
  throw new BadRequest(
    `Invalid schema: '${keyword === 'format' ? 'format: regex' : keyword}' is not supported (${param}): ` +
      'this service runs no regular expression from a request; check that field in your own code',
    { param },
  );
}

/** The model whose usage a resource's calls count against (the model totals). */
export const usageModelOf = (resource: Pick<Resource, 'model_id' | 'endpoint_name'>) => resource.model_id || resource.endpoint_name;

function notInService(resource: Resource, live: EndpointDescription | undefined): NotInService {
  if (!live) {
    return new NotInService(
      'Resource not found on the platform',
      true,
      `The endpoint '${resource.endpoint_name}' no longer exists; it may have been deleted externally`,
    );
  }
  return new NotInService(
    `Resource '${resource.name}' is not InService (status: ${live.status})`,
    false,
    'Chat is possible once the resource is InService again; poll its status endpoint',
  );
}

/**
 * Refuses a resource that cannot answer now, before the model is asked. A platform with endpoints
 * changes their status by itself, so a stored status other than InService is checked against it.
 */
async function ensureInService(resource: Resource): Promise<void> {
  if (resource.status === 'InService') return;
  if (traitsOf(resource.type).lifecycle !== 'endpoint') {
    if (resource.inference_profile && resource.status === 'Failed') throw profileMissingError(resource);
    throw new NotInService(`Resource '${resource.name}' is not InService (status: ${resource.status})`, false);
  }
  const live = await endpointsOf(resource.type).describe(resource.endpoint_name);
  if (live?.status !== 'InService') throw notInService(resource, live);
}

/**
 * The price, and the holds of a call whose input and output are bounded by these token counts: its
 * cost bound reserved on every budget level and its request and token bound on every rate-limited
 * level, all or none, in one write (lib/budgets/reservations.ts `holdAll`).
 */
async function reserveFor(payer: Payer, resource: Resource, callId: string, started: Date, bound: () => PricedUsage) {
  const traits = traitsOf(resource.type);
  const price =
    traits.billing === 'per-token' ? await getTokenPrice(resource.type, resource.inference_profile?.priced_as ?? resource.model_id) : undefined;
  const budgets = budgetsOf(payer);
  const limits = rateLimitsOf(payer);
  const usage = bound();
  const { tokensIn, tokensOut } = usage;
  const limited = budgets.some((b) => b.budgetUsd !== null);
  const amount = price && limited ? callCost(price, usage) : 0;
  const held =
    amount > 0 || limits.length > 0
      ? await holdAll({
          budgets,
          limits,
          amount,
          tokens: tokensIn + tokensOut,
          callId,
          now: started,
          refusal: refusalOf(payer),
        })
      : { reservations: [], rates: [] };
  return { price, budgets, reservations: held.reservations, rates: held.rates, ...(held.report && { rateReport: held.report }) };
}

/**
 * The output bound of a call that names none: the smaller of the model's own maximum (its adapter's
 * figure) and CHAT_MAX_OUTPUT_TOKENS. Without it the platform's own maximum would apply, which the
 * budget hold knows nothing of.
 */
const outputBoundOf = (resource: Resource): number => Math.min(maxOutputTokensOf(resource) ?? Infinity, config.chat.maxOutputTokens);

/**
 * The input a call is held for, and charged when the platform never said what it used (a stream cut
 * off at the deadline or by a hang-up): its whole input bound, as plain input, or, when the call asks
 * for caching, as a 1-hour cache write, the dearest way its prompt can be billed.
 */
export function inputBoundUsage(request: ChatRequest, inputBound: number): Pick<PricedUsage, 'tokensIn' | 'cache'> {
  return cacheCheckpoints(request) > 0 ? { tokensIn: 0, cache: { read: 0, write5m: 0, write1h: inputBound } } : { tokensIn: inputBound };
}

/** Steps 1-3: the model able to answer, the request addressed to it, the budgets reserved. */
export async function prepareCall(input: {
  payer: Payer;
  resource: Resource;
  request: Omit<ChatRequest, 'target'>;
  /** How the caller's dialect names the fields of the features a model may lack (default: OpenAI's chat). */
  fields?: FeatureFields;
  callId?: string;
  now?: Date;
}): Promise<PreparedCall> {
  const { payer, resource } = input;
  const started = new Date(input.now ?? Date.now());
  const callId = input.callId ?? randomUUID();
  await ensureMayCall(payer.user, resource);
  checkCapabilities(resource, input.request, input.fields ?? OPENAI_CHAT_FIELDS);
  const serviceTier = serviceTierOf(payer, resource, input.request.serviceTier);
  await ensureInService(resource);
  // The output bound reserved is the one the platform is sent, so no answer can cost more than its hold.
  // A call that names no bound gets the default answer's bound plus room for the reasoning it asks for.
  const answerBound = input.request.maxTokens ?? outputBoundOf(resource);
  const maxTokens = input.request.maxTokens ?? answerBound + reasoningBound(input.request);
  // Betas the model does not take on its platform would be refused there: they are dropped, and said so.
  const offered = betasOf(resource);
  const betas = (input.request.betas ?? []).filter((beta) => offered.includes(beta));
  const droppedBetas = (input.request.betas ?? []).filter((beta) => !offered.includes(beta));
  const request: ChatRequest = {
    ...input.request,
    maxTokens,
    target: traitsOf(resource.type).target(resource),
    model: resource.model_id,
    serviceTier,
    betas,
  };
  if (serviceTier === undefined) delete request.serviceTier;
  if (betas.length === 0) delete request.betas;
  const inputBound = promptTokenBound(request);
  // Reasoning is output: its budget is held on top of the answer's bound.
  const outputBound = answerBound + reasoningBound(request);
  const held = await reserveFor(payer, resource, callId, started, () => ({
    ...inputBoundUsage(request, inputBound),
    tokensOut: outputBound,
    serviceTier,
  }));
  return {
    callId,
    started,
    payer,
    resource,
    platform: chatOf(resource.type),
    request,
    inputBound,
    droppedBetas,
    ...held,
    ...(serviceTier && { serviceTier }),
  };
}

/** Steps 1-3 of an embeddings call: the model able to embed, the budgets and rate limits held for its input (an embedding has no output tokens). */
export async function prepareEmbedding(input: {
  payer: Payer;
  resource: Resource;
  request: Omit<EmbeddingRequest, 'target'>;
}): Promise<PreparedEmbedding> {
  const { payer, resource } = input;
  const started = new Date();
  const callId = randomUUID();
  await ensureMayCall(payer.user, resource);
  if (!capabilitiesOf(resource).embeddings) {
    throw new BadRequest(`The model '${resource.endpoint_name}' is not an embedding model (POST /v1/chat/completions)`, {
      code: 'model_not_capable',
      param: 'model',
    });
  }
  await ensureInService(resource);
  const request: EmbeddingRequest = { ...input.request, target: traitsOf(resource.type).target(resource), model: resource.model_id };
  const held = await reserveFor(payer, resource, callId, started, () => ({ tokensIn: embeddingTokenBound(request.inputs), tokensOut: 0 }));
  return { callId, started, payer, resource, request, ...held };
}

/** A call that produced nothing: its reservations and rate holds go back, nothing is counted. */
export const releaseCall = (call: MeteredCall) => releaseHeld(call);

/** A call the platform failed before it answered: its holds go back, and the failure, explained, carries its rate report. */
export async function failedCall(call: MeteredCall, err: unknown): Promise<never> {
  await releaseCall(call);
  throw reportingRates(await explainFailure(call.resource, err), call.rateReport);
}

/**
 * Why a model call failed, for the caller: the platform's failure, unless the resource is an endpoint
 * that has left service meanwhile (then NotInService says so; a failure to ask keeps the original).
 */
export async function explainFailure(resource: Resource, err: unknown): Promise<unknown> {
  if (resource.inference_profile) return explainProfileFailure(resource, err);
  if (traitsOf(resource.type).lifecycle !== 'endpoint') return err;
  const live = await endpointsOf(resource.type)
    .describe(resource.endpoint_name)
    .catch(() => 'unknown' as const);
  return live !== 'unknown' && live?.status !== 'InService' ? notInService(resource, live) : err;
}

/** Step 4 for an answer in one piece; a failure releases the reservations and is explained. */
export async function answer(call: PreparedCall): Promise<ChatReply> {
  return asked(call, () => call.platform.chat(call.request));
}

/** Step 4 of an embeddings call, by the platform's embeddings side (lib/platforms/embeddings.ts `embeddingsOf`). */
export async function embed(call: PreparedEmbedding, embed: (request: EmbeddingRequest) => Promise<EmbeddingReply>): Promise<EmbeddingReply> {
  return asked(call, () => embed(call.request));
}

/**
 * What an entry point does with an answered call (its record, its checks of the answer); a failure
 * there still tells the rate windows the call held, so it carries the call's report.
 */
export async function afterAnswer<T>(call: MeteredCall, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw reportingRates(err, call.rateReport);
  }
}

async function asked<T>(call: MeteredCall, ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    return failedCall(call, err);
  }
}

/**
 * Whether a JSON answer is what was asked (request.outputFormat): it must parse, and with a schema
 * validate, natively produced or not (lib/platforms/json-output.ts). An answer that is not is still a
 * call the platform charged: it is settled, and then refused with this error (a 502: the model failed).
 */
export function jsonOutputFailure(
  request: Pick<ChatRequest, 'outputFormat'>,
  content: string,
  end: { calledTools: boolean; finishReason?: FinishReason },
): UpstreamError | undefined {
  // A model that called the caller's tools has not answered yet; one cut off at max_tokens says so itself.
  if (!request.outputFormat || end.calledTools || end.finishReason === 'length') return undefined;
  const check = checkJsonOutput(content, request.outputFormat);
  return check.valid ? undefined : new UpstreamError('model', `The model's answer is not the structured output asked for: ${check.problem}`);
}

/** What the platform reported of a call (or, for a stream cut short, what was estimated). */
export interface CallUsage {
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  /** The model that answered, as the platform names it. */
  modelId?: string;
  /** What went through the prompt cache (absent: nothing). */
  cache?: CacheTokens;
  /** The tier that served the call, as the platform reported it. */
  serviceTier?: ServiceTier;
}

/** Step 5: an answered call, priced, with each budget owner's settle; what its entry point records. */
export interface Settlement {
  callId: string;
  startedAt: string;
  answeredAt: string;
  modelId: string;
  usageModelId: string;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  /** What went through the prompt cache, when anything did. */
  cache?: CacheTokens;
  /** The tier that served the call (what the platform reported, else what was asked), when not Standard by default. */
  serviceTier?: ServiceTier;
  /** In nano-dollars (core/money.ts), exact: never rounded. */
  cost: Nanos;
  settles: SpendSettle[];
  /** The rate windows whose token bounds become the call's true tokens. */
  rates: RateHold[];
}

export function settlementOf(call: MeteredCall, usage: CallUsage, answeredAt = new Date()): Settlement {
  const count = (n: number) => Math.max(0, Math.round(n));
  const tokensIn = count(usage.tokensIn);
  const tokensOut = count(usage.tokensOut);
  const latencyMs = count(usage.latencyMs);
  const cache = usage.cache && { read: count(usage.cache.read), write5m: count(usage.cache.write5m), write1h: count(usage.cache.write1h) };
  const serviceTier = usage.serviceTier ?? call.serviceTier;
  const cost = call.price ? callCost(call.price, { tokensIn, tokensOut, cache, serviceTier }) : 0;
  const usageModelId = usageModelOf(call.resource);
  return {
    callId: call.callId,
    startedAt: call.started.toISOString(),
    answeredAt: answeredAt.toISOString(),
    modelId: usage.modelId || usageModelId,
    usageModelId,
    tokensIn,
    tokensOut,
    latencyMs,
    ...(cache && { cache }),
    ...(serviceTier && { serviceTier }),
    cost,
    settles: settlesOf(call.budgets, call.reservations, call.started, cost),
    rates: call.rates,
  };
}

/** Counted once the call is recorded, so the metrics agree with the usage figures. `counter` is the entry's own (ChatTurns, GatewayCalls). */
export function countCall(call: MeteredCall, settlement: Settlement, counter: string): void {
  const dimension = { platform: call.resource.type };
  dimensionedMetric(counter, dimension, 1);
  dimensionedMetric('TokensIn', dimension, settlement.tokensIn);
  dimensionedMetric('TokensOut', dimension, settlement.tokensOut);
  dimensionedMetric('ModelLatency', dimension, settlement.latencyMs, MetricUnit.Milliseconds);
}
