import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { MetricUnit, dimensionedMetric } from '../../core/observability';
import { release, type Reservation } from '../../tables/budgets';
import { recordGatewayCall } from '../../tables/gateway';
import { promptTokenBound, reserveAll, settlesOf, type Budget } from '../budgets/reservations';
import type { ApiKey } from '../../tables/keys';
import type { Resource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { chatBinding, describeEndpoint } from '../chat/platforms';
import { BadRequest, ServiceUnavailable } from '../errors';
import type { ChatCapable, ChatReply, ChatRequest, ChatTurn } from '../platforms/types';
import { getTokenPrice, tokenCost, type ResolvedTokenPrice as TokenPrice } from '../pricing/service';
import { resolveModel } from './models';

/**
 * POST /v1/chat/completions: one OpenAI chat completion on a deployed resource.
 *
 *   1. the key's lookup, then its owner (the /v1 guard);
 *   2. the resources (to resolve the model id), with the price table alongside;
 *   3. a reservation on each budget that is set (the key's, the owner's): an upper bound of the
 *      call's cost, from the prompt's size and max_tokens at the model's price;
 *   4. the model call;
 *   5. one transaction: the call logged and counted, and each reservation settled to the true cost
 *      (tables/gateway.ts). A failed call gives its reservations back and counts nothing.
 *
 * A streamed completion (stream.ts) takes the same steps, with step 4 as a stream in between.
 */

export interface CompletionBody {
  model: string;
  messages: { role: 'system' | 'developer' | 'user' | 'assistant'; content: string | { type: 'text'; text: string }[] }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[] | null;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
}

const textOf = (content: CompletionBody['messages'][number]['content']) =>
  typeof content === 'string' ? content : content.map((p) => p.text).join('');

/** OpenAI's messages as the platforms' request: system and developer messages become the system prompt. */
export function toChatRequest(body: CompletionBody, target: string, maxTokens: number): ChatRequest {
  const system: string[] = [];
  const messages: ChatTurn[] = [];
  for (const m of body.messages) {
    const text = textOf(m.content);
    if (m.role === 'system' || m.role === 'developer') system.push(text);
    else messages.push({ role: m.role, content: text });
  }
  if (!messages.some((m) => m.role === 'user')) {
    throw new BadRequest("Invalid field 'messages': at least one message must have the role 'user'", { code: 'invalid_request', param: 'messages' });
  }
  const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return {
    target,
    system: system.length > 0 ? system.join('\n\n') : undefined,
    messages,
    maxTokens,
    temperature: body.temperature,
    topP: body.top_p,
    stop: stop?.length ? stop : undefined,
  };
}

async function ensureInService(resource: Resource): Promise<void> {
  if (resource.status === 'InService') return;
  if (resource.type === 'dedicated') {
    const live = await describeEndpoint(resource).catch(() => undefined);
    if (live?.status === 'InService') return;
  }
  throw new ServiceUnavailable(`The model '${resource.endpoint_name}' is not in service now (status: ${resource.status})`, 30, {
    code: 'model_not_available',
    param: 'model',
  });
}

/** A call whose budgets are reserved and whose model is resolved: what the model call and its settle need. */
export interface PreparedCall {
  callId: string;
  requestId: string;
  started: Date;
  key: ApiKey;
  user: User;
  resource: Resource;
  platform: ChatCapable;
  request: ChatRequest;
  price: TokenPrice | undefined;
  budgets: Budget[];
  reservations: Reservation[];
}

/** Steps 1-3: the model resolved and in service, the request built, the budgets reserved (or 429). */
export async function prepareCall(
  input: { body: CompletionBody; key: ApiKey; user: User; requestId: string },
  now = new Date(),
): Promise<PreparedCall> {
  const { body, key, user } = input;
  const callId = randomUUID();
  const resource = await resolveModel(key, body.model);
  await ensureInService(resource);
  const { platform, target } = chatBinding(resource);
  const maxTokens = body.max_tokens ?? body.max_completion_tokens ?? config.chat.maxOutputTokens;
  const request = toChatRequest(body, target, maxTokens);
  // Dedicated endpoints are paid by the hour, not per token: their calls cost nothing against a budget.
  const price = resource.type === 'dedicated' ? undefined : await getTokenPrice(resource.type, resource.model_id);
  const bound = price ? tokenCost(price, promptTokenBound(request), maxTokens) : 0;

  // The key's spend is always kept (GET /api/keys shows it); the owner's only while they have a budget,
  // as for their session chat: a budget set later starts from their usage (lib/users/service.ts).
  const budgets: Budget[] = [{ owner: { kind: 'key', id: key.id }, budgetUsd: key.monthly_budget_usd }];
  if (user.monthly_budget_usd !== null) budgets.push({ owner: { kind: 'user', id: user.id }, budgetUsd: user.monthly_budget_usd });
  const reservations =
    bound > 0
      ? await reserveAll(
          budgets,
          bound,
          callId,
          now,
          (owner) => `The monthly budget of ${owner.kind === 'key' ? 'this API key' : "the key's owner"} cannot cover this request`,
        )
      : [];
  return { callId, requestId: input.requestId, started: new Date(now), key, user, resource, platform, request, price, budgets, reservations };
}

/** A failed call: its reservations go back, nothing is counted. */
export const releaseCall = (call: PreparedCall) => Promise.all(call.reservations.map(release)).then(() => undefined);

export interface Answered {
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  modelId?: string;
}

/** Step 5: the call logged and counted, each reservation settled to the true cost. Returns the cost. */
export async function settleCall(
  call: PreparedCall,
  answer: Answered,
  answeredAt = new Date(),
): Promise<{ costUsd: number; tokensIn: number; tokensOut: number }> {
  const { resource, price, budgets, reservations } = call;
  const tokensIn = Math.max(0, Math.round(answer.tokensIn));
  const tokensOut = Math.max(0, Math.round(answer.tokensOut));
  const latencyMs = Math.max(0, Math.round(answer.latencyMs));
  const costUsd = price ? tokenCost(price, tokensIn, tokensOut) : 0;
  await recordGatewayCall(
    {
      callId: call.callId,
      requestId: call.requestId,
      keyId: call.key.id,
      userId: call.user.id,
      startedAt: call.started.toISOString(),
      answeredAt: answeredAt.toISOString(),
      resource: { id: resource.id, type: resource.type },
      usageModelId: resource.model_id || resource.endpoint_name,
      modelId: answer.modelId || resource.model_id || resource.endpoint_name,
      tokensIn,
      tokensOut,
      latencyMs,
      costUsd,
    },
    settlesOf(budgets, reservations, call.started, costUsd),
  );
  const dimension = { platform: resource.type };
  dimensionedMetric('GatewayCalls', dimension, 1);
  dimensionedMetric('ModelLatency', dimension, latencyMs, MetricUnit.Milliseconds);
  return { costUsd, tokensIn, tokensOut };
}

export async function completion(input: { body: CompletionBody; key: ApiKey; user: User; requestId: string }, now = new Date()) {
  const { body } = input;
  const call = await prepareCall(input, now);
  let reply: ChatReply;
  try {
    reply = await call.platform.chat(call.request);
  } catch (err) {
    await releaseCall(call);
    throw err;
  }

  const answeredAt = new Date();
  const { costUsd, tokensIn, tokensOut } = await settleCall(call, reply, answeredAt);
  return {
    costUsd,
    response: {
      id: completionId(call),
      object: 'chat.completion',
      created: Math.floor(answeredAt.getTime() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.content, refusal: null },
          logprobs: null,
          finish_reason: reply.finishReason ?? 'stop',
        },
      ],
      usage: { prompt_tokens: tokensIn, completion_tokens: tokensOut, total_tokens: tokensIn + tokensOut },
      system_fingerprint: null,
    },
  };
}

/** OpenAI's completion id of a call: `chatcmpl-` and the call id (so a client's id finds the call). */
export const completionId = (call: PreparedCall) => `chatcmpl-${call.callId.replaceAll('-', '')}`;
