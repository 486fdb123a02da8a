import { usdText, type Nanos } from '../../core/money';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { answer, jsonOutputFailure, prepareCall, settlementOf, type FeatureFields, type Payer } from '../calls/metered';
import { resolveModel, type NameLookup } from '../calls/resolve';
import { openStream } from '../calls/stream';
import type { CallMeta, MeteredEvent, ParsedChat, Settled } from '../dialects/types';
import { reply, streamed } from '../http/types';
import type { ChatReply } from '../platforms/types';
import { recordGatewayCall } from './record';

/**
 * A chat call of the gateway in any of its wire dialects (lib/dialects: OpenAI's chat completions,
 * the Responses API, Anthropic's Messages API), through the one metered call (lib/calls/metered.ts).
 * What is an entry point's own is only its dialect: how its body reads as the canonical request, how
 * the answer and the stream are written, and how it names the fields of a feature a model lacks. What
 * it stores is the same for all: the call (recordGatewayCall).
 *
 * Its DynamoDB round trips, on a warm container: the key's lookup, its owner and the model's name
 * lookup side by side (lib/http/key-endpoint.ts prefetch); one write holding every budget and rate
 * limit that applies (none when none does); after the answer, one PutItem. A streamed answer takes the same steps.
 *
 * The cost of an answer in one piece is the `x-model-ops-cost-usd` header. A stream's is known only at
 * its end, so it cannot be a header: each dialect carries it in its last event (OpenAI's usage chunk
 * `usage.cost_usd`, the Responses API's response.completed, Anthropic's message_delta).
 */

export interface ChatDialect<B, C extends ParsedChat> {
  /** `headers`: the request's, lower-cased (Anthropic's betas ride in one). */
  parse(body: B, headers: Record<string, string | undefined>): C;
  answer(reply: ChatReply, settled: Settled, meta: CallMeta, call: C): unknown;
  frames(events: AsyncIterable<MeteredEvent>, meta: CallMeta, call: C): AsyncGenerator<string>;
  /** The request's fields of the features a model may lack, in this dialect's words. */
  fields: FeatureFields;
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

const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };

/** Time kept back from the function's timeout for the settle and the last events. */
const SETTLE_MARGIN_MS = 5_000;

/** The call's cost in USD, exact and unrounded (up to 9 decimals: "0.0000001"). */
export const costHeader = (cost: Nanos) => ({ 'x-model-ops-cost-usd': usdText(cost) });

/** The header that names the betas a call asked for and its model does not take (dropped rather than refused). */
export const DROPPED_BETAS_HEADER = 'x-model-ops-betas-dropped';

export async function chatCall<B, C extends ParsedChat>(dialect: ChatDialect<B, C>, input: GatewayInput<B>) {
  const parsed = dialect.parse(input.body, input.event?.headers ?? {});
  const resource = await resolveModel(input.key, input.payer.user, parsed.model, input.prefetched);
  const call = await prepareCall({ payer: input.payer, resource, request: parsed.request, fields: dialect.fields });
  const meta = (at: Date): CallMeta => ({ id: call.callId, model: parsed.model, created: Math.floor(at.getTime() / 1000) });
  const dropped: Record<string, string> = call.droppedBetas.length > 0 ? { [DROPPED_BETAS_HEADER]: call.droppedBetas.join(',') } : {};

  if (parsed.stream) {
    const remaining = input.remainingMs?.();
    const events = await openStream(call, {
      record: (settlement) => recordGatewayCall(call, settlement, input.requestId, true),
      deadlineAt: remaining === undefined ? undefined : Date.now() + Math.max(0, remaining - SETTLE_MARGIN_MS),
    });
    return streamed(200, dialect.frames(events, meta(call.started), parsed), { ...SSE_HEADERS, ...dropped });
  }

  const answered = await answer(call);
  const answeredAt = new Date();
  const settlement = settlementOf(call, answered, answeredAt);
  await recordGatewayCall(call, settlement, input.requestId);
  const failure = jsonOutputFailure(call.request, answered.content, {
    calledTools: (answered.toolCalls?.length ?? 0) > 0,
    finishReason: answered.finishReason,
  });
  if (failure) throw failure;
  return reply(200, dialect.answer(answered, settlement, meta(answeredAt), parsed), { ...costHeader(settlement.cost), ...dropped });
}
