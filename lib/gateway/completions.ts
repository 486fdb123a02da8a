import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { MetricUnit, dimensionedMetric } from '../../core/observability';
import { release } from '../../tables/budgets';
import { recordGatewayCall } from '../../tables/gateway';
import { promptTokenBound, reserveAll, settlesOf, type Budget } from '../budgets/reservations';
import type { ApiKey } from '../../tables/keys';
import type { Resource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { chatBinding, describeEndpoint } from '../chat/platforms';
import { CodedError, UpstreamError } from '../http/errors';
import type { ChatReply, ChatRequest, ChatTurn } from '../platforms/types';
import { getTokenPrice, tokenCost } from '../pricing/service';
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
    throw new CodedError(400, "Invalid field 'messages': at least one message must have the role 'user'", 'invalid_request', 'messages');
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
  throw new CodedError(
    503,
    `The model '${resource.endpoint_name}' is not in service now (status: ${resource.status})`,
    'model_not_available',
    'model',
    {
      'Retry-After': '30',
    },
  );
}

export async function completion(input: { body: CompletionBody; key: ApiKey; user: User; requestId: string }, now = new Date()) {
  const { body, key, user } = input;
  const callId = randomUUID();
  const started = new Date(now);
  if (body.stream)
    throw new CodedError(
      400,
      "Invalid field 'stream': streamed completions are not served yet; send stream: false",
      'unsupported_parameter',
      'stream',
    );
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

  let reply: ChatReply;
  try {
    reply = await platform.chat(request);
  } catch (err) {
    await Promise.all(reservations.map(release));
    if (err instanceof UpstreamError)
      throw new UpstreamError(err.platform, err.message, err.statusCode === 504 ? 504 : 502, err.details, err.upstreamStatus);
    throw err;
  }

  const answeredAt = new Date();
  const tokensIn = Math.max(0, Math.round(reply.tokensIn));
  const tokensOut = Math.max(0, Math.round(reply.tokensOut));
  const latencyMs = Math.max(0, Math.round(reply.latencyMs));
  const costUsd = price ? tokenCost(price, tokensIn, tokensOut) : 0;
  const settles = settlesOf(budgets, reservations, now);
  await recordGatewayCall(
    {
      callId,
      requestId: input.requestId,
      keyId: key.id,
      userId: user.id,
      startedAt: started.toISOString(),
      answeredAt: answeredAt.toISOString(),
      resource: { id: resource.id, type: resource.type },
      usageModelId: resource.model_id || resource.endpoint_name,
      modelId: reply.modelId || resource.model_id || resource.endpoint_name,
      tokensIn,
      tokensOut,
      latencyMs,
      costUsd,
    },
    costUsd > 0 || reservations.length > 0 ? settles : [],
  );
  const dimension = { platform: resource.type };
  dimensionedMetric('GatewayCalls', dimension, 1);
  dimensionedMetric('ModelLatency', dimension, latencyMs, MetricUnit.Milliseconds);

  return {
    costUsd,
    response: {
      id: `chatcmpl-${callId.replaceAll('-', '')}`,
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
