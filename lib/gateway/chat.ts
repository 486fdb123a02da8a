import { usdText, type Nanos } from '../../core/money';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { attempt, type AttemptOptions } from '../calls/attempts';
import { afterAnswer, answer, jsonOutputFailure, prepareCall, settlementOf, type FeatureFields, type Payer } from '../calls/metered';
import { resolveTarget, type NameLookup } from '../calls/resolve';
import { openStream } from '../calls/stream';
import type { CallMeta, MeteredEvent, ParsedChat, Settled } from '../dialects/types';
import { reply, streamed, withRates } from '../http/types';
import type { ChatReply } from '../platforms/types';
import type { Resource } from '../../tables/resources';
import { StreamedCalls } from '../dialects/common';
import { attributionOf, type EndUser } from './attribution';
import { recordGatewayCall } from './record';

/**
 * A chat call of the gateway in any of its wire dialects (lib/dialects: OpenAI's chat completions,
 * the Responses API, Anthropic's Messages API), through the one metered call (lib/calls/metered.ts).
 * What is an entry point's own is only its dialect: how its body reads as the canonical request, how
 * the answer and the stream are written, and how it names the fields of a feature a model lacks. What
 * it stores is the same for all: the call (recordGatewayCall), with the client's session and end user
 * (lib/gateway/attribution.ts).
 *
 * Its DynamoDB round trips, on a warm container: the key's lookup, its owner and the model's name
 * lookup side by side (lib/http/key-endpoint.ts prefetch); one write holding every budget and rate
 * limit that applies (none when none does); after the answer, one PutItem. A streamed answer takes the same steps.
 *
 * `model` may name a route (lib/calls/attempts.ts): each target it tries is its own metered call, and
 * the answer says which resource answered and after how many attempts (`x-model-ops-resource`,
 * `x-model-ops-attempts`; a direct call: its resource, 1).
 *
 * The cost of an answer in one piece is the `x-model-ops-cost-usd` header. A stream's is known only at
 * its end, so it cannot be a header: each dialect carries it in its last event (OpenAI's usage chunk
 * `usage.cost_usd`, the Responses API's response.completed, Anthropic's message_delta).
 */

export interface ChatDialect<B, C extends ParsedChat> {
  /** `headers`: the request's, lower-cased (Anthropic's betas ride in one). */
  parse(body: B, headers: Record<string, string | undefined>): C;
  answer(reply: ChatReply, settled: Settled, meta: CallMeta, call: C): unknown;
  /** The streamed answer's pieces: server-sent events' text, or the bytes of a binary framing (AWS's event stream). */
  frames(events: AsyncIterable<MeteredEvent>, meta: CallMeta, call: C): AsyncGenerator<string | Uint8Array>;
  /** The streamed answer's media type, where it is not server-sent events. */
  streamType?: string;
  /** The request's fields of the features a model may lack, in this dialect's words. */
  fields: FeatureFields;
  /** The end user the request names, where the dialect has such a field (recorded with the call). */
  endUser?: (body: B) => EndUser;
  /** Headers of its own on an answer in one piece (Bedrock's InvokeModel: the token counts and latency). */
  headers?(reply: ChatReply, settled: Settled): Record<string, string>;
}

export interface GatewayInput<B> {
  body: B;
  key: ApiKey;
  user: User;
  /** Who pays: the key, its owner and the owner's teams (lib/calls/levels.ts), and where the rate windows are reported. */
  payer: Payer;
  requestId: string;
  prefetched?: Promise<NameLookup>;
  /** The invocation's remaining time: a stream ends (and settles) before the function does. */
  remainingMs?: () => number;
  /** The request as it came (its headers: anthropic-beta). */
  event?: { headers?: Record<string, string | undefined> };
}

/**
 * What an entry point keeps of an answered call beyond the call itself (the Responses API's stored
 * response), given the reply whole, streamed or not. It runs before the answer is sent (a stream's
 * last event waits for it), so a client that continues at once finds what was kept.
 */
export type Keep<C> = (reply: ChatReply, settled: Settled, meta: CallMeta, call: C) => Promise<void>;

/** The metered events passed through unchanged, the reply gathered from them and kept before the `settled` event goes on. */
async function* keeping<C>(events: AsyncIterable<MeteredEvent>, keep: Keep<C>, meta: CallMeta, call: C): AsyncGenerator<MeteredEvent> {
  let content = '';
  const calls = new StreamedCalls();
  let finishReason: ChatReply['finishReason'];
  for await (const event of events) {
    if (event.kind === 'text') content += event.text;
    else if (event.kind === 'tool_call') calls.open(event.index, event.id, event.name);
    else if (event.kind === 'tool_arguments') calls.add(event.index, event.text);
    else if (event.kind === 'stop') finishReason = event.finishReason;
    else if (event.kind === 'settled') {
      const toolCalls = calls.all();
      const reply: ChatReply = {
        content,
        ...(toolCalls.length > 0 && { toolCalls }),
        ...(finishReason && { finishReason }),
        tokensIn: event.tokensIn,
        tokensOut: event.tokensOut,
        latencyMs: 0,
        modelId: meta.model,
      };
      await keep(reply, event, meta, call);
    }
    yield event;
  }
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };

/** Time kept back from the function's timeout for the settle and the last events. */
const SETTLE_MARGIN_MS = 5_000;

/** The call's cost in USD, exact and unrounded (up to 9 decimals: "0.0000001"). */
export const costHeader = (cost: Nanos) => ({ 'x-model-ops-cost-usd': usdText(cost) });

/** Which resource answered, after how many attempts (1 unless a route fell over). */
export const answeredBy = (resource: { endpoint_name: string }, attempts: number) => ({
  'x-model-ops-resource': resource.endpoint_name,
  'x-model-ops-attempts': String(attempts),
});

/** The header that names the betas a call asked for and its model does not take (dropped rather than refused). */
const DROPPED_BETAS_HEADER = 'x-model-ops-betas-dropped';

/** The headers every answer carries: who answered, and the betas its model did not take. */
const answerHeaders = (call: { resource: { endpoint_name: string }; droppedBetas: readonly string[] }, attempts: number) => ({
  ...answeredBy(call.resource, attempts),
  ...(call.droppedBetas.length > 0 ? { [DROPPED_BETAS_HEADER]: call.droppedBetas.join(',') } : {}),
});

export async function chatCall<B, C extends ParsedChat>(dialect: ChatDialect<B, C>, input: GatewayInput<B>, keep?: Keep<C>) {
  const parsed = dialect.parse(input.body, input.event?.headers ?? {});
  const attribution = attributionOf(input.event?.headers ?? {}, dialect.endUser?.(input.body));
  const target = await resolveTarget(input.key, input.payer.user, parsed.model, input.prefetched);
  const route = target.route;
  const prepare = (resource: Resource, how: AttemptOptions) =>
    prepareCall({ payer: input.payer, resource, request: { ...parsed.request, ...how }, fields: dialect.fields });
  const meta = (id: string, at: Date): CallMeta => ({ id, model: parsed.model, created: Math.floor(at.getTime() / 1000) });

  if (parsed.stream) {
    const remaining = input.remainingMs?.();
    const deadlineAt = remaining === undefined ? undefined : Date.now() + Math.max(0, remaining - SETTLE_MARGIN_MS);
    const {
      call,
      result: events,
      attempts,
    } = await attempt(target, prepare, (call) =>
      openStream(call, { record: (settlement) => recordGatewayCall(call, settlement, input.requestId, true, route, attribution), deadlineAt }),
    );
    const at = meta(call.callId, call.started);
    const headers = { ...SSE_HEADERS, ...(dialect.streamType && { 'Content-Type': dialect.streamType }), ...answerHeaders(call, attempts) };
    return withRates(streamed(200, dialect.frames(keep ? keeping(events, keep, at, parsed) : events, at, parsed), headers), call.rateReport);
  }

  const { call, result: answered, attempts } = await attempt(target, prepare, answer);
  return afterAnswer(call, async () => {
    const answeredAt = new Date();
    const settlement = settlementOf(call, answered, answeredAt);
    await recordGatewayCall(call, settlement, input.requestId, false, route, attribution);
    const failure = jsonOutputFailure(call.request, answered.content, {
      calledTools: (answered.toolCalls?.length ?? 0) > 0,
      finishReason: answered.finishReason,
    });
    if (failure) throw failure;
    const at = meta(call.callId, answeredAt);
    await keep?.(answered, settlement, at, parsed);
    const headers = { ...costHeader(settlement.cost), ...answerHeaders(call, attempts), ...dialect.headers?.(answered, settlement) };
    return withRates(reply(200, dialect.answer(answered, settlement, at, parsed), headers), call.rateReport);
  });
}
