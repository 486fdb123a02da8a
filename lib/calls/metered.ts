import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { MetricUnit, dimensionedMetric } from '../../core/observability';
import type { Reservation, SpendSettle } from '../../tables/budgets';
import type { RateHold } from '../../tables/rates';
import type { Resource } from '../../tables/resources';
import { ensureMayCall } from './access';
import { holdAll, promptTokenBound, releaseHeld, settlesOf, type Budget } from '../budgets/reservations';
import { NotInService } from '../errors';
import { chatOf } from '../platforms/chat';
import { dedicatedEndpoints } from '../platforms/dedicated/endpoints';
import { traitsOf } from '../platforms/registry';
import type { ChatCapable, ChatReply, ChatRequest, EndpointDescription } from '../platforms/types';
import { getTokenPrice, tokenCost, type ResolvedTokenPrice } from '../pricing/service';
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
 *   5. the settlement: tokens, latency and cost clamped and priced, and what each budget owner's spend
 *      item gets (settlementOf). The entry point records it with what it stores: the chat turn its
 *      turn item and counters in one transaction (tables/turns.ts), the gateway one pending item
 *      settled from the table's stream (tables/calls.ts).
 *
 * What an entry point declares is only its own: how it resolved the resource (a conversation's
 * resource id, a /v1 model name), its wire dialect and framing, and what it stores.
 */

export type { Payer } from './levels';

export interface PreparedCall {
  callId: string;
  started: Date;
  payer: Payer;
  resource: Resource;
  platform: ChatCapable;
  request: ChatRequest;
  /** Absent on platforms billed by the hour: their calls cost nothing more. */
  price?: ResolvedTokenPrice;
  budgets: Budget[];
  reservations: Reservation[];
  /** The rate windows it took a request and its token bound from, settled to its true tokens. */
  rates: RateHold[];
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
    throw new NotInService(`Resource '${resource.name}' is not InService (status: ${resource.status})`, false);
  }
  const live = await dedicatedEndpoints.describe(resource.endpoint_name);
  if (live?.status !== 'InService') throw notInService(resource, live);
}

/** Steps 1-3: the model able to answer, the request addressed to it, the budgets reserved. */
export async function prepareCall(input: {
  payer: Payer;
  resource: Resource;
  request: Omit<ChatRequest, 'target'>;
  callId?: string;
  now?: Date;
}): Promise<PreparedCall> {
  const { payer, resource } = input;
  const started = new Date(input.now ?? Date.now());
  const callId = input.callId ?? randomUUID();
  await ensureMayCall(payer.user, resource);
  await ensureInService(resource);
  const traits = traitsOf(resource.type);
  const request: ChatRequest = { ...input.request, target: traits.target(resource) };
  const price = traits.billing === 'per-token' ? await getTokenPrice(resource.type, resource.model_id) : undefined;
  const budgets = budgetsOf(payer);
  const limits = rateLimitsOf(payer);
  const tokens = promptTokenBound(request) + (request.maxTokens ?? config.chat.maxOutputTokens);
  const limited = budgets.some((b) => b.budgetUsd !== null);
  const bound = price && limited ? tokenCost(price, promptTokenBound(request), request.maxTokens ?? config.chat.maxOutputTokens) : 0;
  const held =
    bound > 0 || limits.length > 0
      ? await holdAll({ budgets, limits, amountUsd: bound, tokens, callId, now: started, refusal: refusalOf(payer), onReport: payer.onRates })
      : { reservations: [], rates: [] };
  return {
    callId,
    started,
    payer,
    resource,
    platform: chatOf(resource.type),
    request,
    price,
    budgets,
    reservations: held.reservations,
    rates: held.rates,
  };
}

/** A call that produced nothing: its reservations go back, nothing is counted. */
export const releaseCall = (call: PreparedCall) => releaseHeld(call);

/**
 * Why a model call failed, for the caller: the platform's failure, unless the resource is an endpoint
 * that has left service meanwhile (then NotInService says so; a failure to ask keeps the original).
 */
export async function explainFailure(resource: Resource, err: unknown): Promise<unknown> {
  if (traitsOf(resource.type).lifecycle !== 'endpoint') return err;
  const live = await dedicatedEndpoints.describe(resource.endpoint_name).catch(() => 'unknown' as const);
  return live !== 'unknown' && live?.status !== 'InService' ? notInService(resource, live) : err;
}

/** Step 4 for an answer in one piece; a failure releases the reservations and is explained. */
export async function answer(call: PreparedCall): Promise<ChatReply> {
  try {
    return await call.platform.chat(call.request);
  } catch (err) {
    await releaseCall(call);
    throw await explainFailure(call.resource, err);
  }
}

/** What the platform reported of a call (or, for a stream cut short, what was estimated). */
export interface CallUsage {
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  /** The model that answered, as the platform names it. */
  modelId?: string;
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
  costUsd: number;
  settles: SpendSettle[];
  /** The rate windows whose token bounds become the call's true tokens. */
  rates: RateHold[];
}

export function settlementOf(call: PreparedCall, usage: CallUsage, answeredAt = new Date()): Settlement {
  const tokensIn = Math.max(0, Math.round(usage.tokensIn));
  const tokensOut = Math.max(0, Math.round(usage.tokensOut));
  const latencyMs = Math.max(0, Math.round(usage.latencyMs));
  const costUsd = call.price ? tokenCost(call.price, tokensIn, tokensOut) : 0;
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
    costUsd,
    settles: settlesOf(call.budgets, call.reservations, call.started, costUsd),
    rates: call.rates,
  };
}

/** Counted once the call is recorded, so the metrics agree with the usage figures. `counter` is the entry's own (ChatTurns, GatewayCalls). */
export function countCall(call: PreparedCall, settlement: Settlement, counter: string): void {
  const dimension = { platform: call.resource.type };
  dimensionedMetric(counter, dimension, 1);
  dimensionedMetric('TokensIn', dimension, settlement.tokensIn);
  dimensionedMetric('TokensOut', dimension, settlement.tokensOut);
  dimensionedMetric('ModelLatency', dimension, settlement.latencyMs, MetricUnit.Milliseconds);
}
