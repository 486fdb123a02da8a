/**
 * The Messages dialect's answer (lib/dialects/anthropic-messages.ts): the message object of a reply,
 * and the event stream of a streamed one.
 */
import { usdOf } from '../../core/money';
import type { ChatReply, FinishReason, ReasoningBlock } from '../platforms/types';

import { anthropicErrorBody } from '../http/anthropic-errors';
import {
  StreamedCalls,
  answeredTier,
  argumentsObject,
  promptTokens,
  compactId,
  finishOf,
  guarded,
  replyFinish,
  sseEvent,
  streamFailure,
} from './common';
import type { CallMeta, MeteredEvent, Settled } from './types';

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/** Anthropic's message id of a call: `msg_` and the call id. */
export const messageId = (meta: CallMeta) => `msg_${compactId(meta.id)}`;

const STOP_REASONS: Record<FinishReason, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' };

/** The tier that served, in Anthropic's words (standard, priority) and the service's for Bedrock's Flex. */
const TIERS = { default: 'standard', priority: 'priority', flex: 'flex' } as const;

const usageOf = (settled: Settled) => ({
  input_tokens: settled.tokensIn,
  output_tokens: settled.tokensOut,
  cache_creation_input_tokens: promptTokens(settled).written,
  cache_read_input_tokens: promptTokens(settled).cached,
  cache_creation: { ephemeral_5m_input_tokens: settled.cache?.write5m ?? 0, ephemeral_1h_input_tokens: settled.cache?.write1h ?? 0 },
  service_tier: TIERS[answeredTier(settled)],
});

/** A reasoning block as Anthropic writes it: thinking with its signature, or redacted thinking. */
const thinkingBlock = (block: ReasoningBlock) =>
  block.type === 'redacted'
    ? { type: 'redacted_thinking', data: block.data }
    : { type: 'thinking', thinking: block.text, signature: block.signature };

/** The `message` of a reply that is not streamed. */
export function answer(reply: ChatReply, settled: Settled, meta: CallMeta) {
  return {
    id: messageId(meta),
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [
      ...(reply.reasoning ?? []).map(thinkingBlock),
      ...(reply.content ? [{ type: 'text', text: reply.content }] : []),
      ...(reply.toolCalls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call.arguments) })),
    ],
    // The canonical reply does not say which stop sequence ended it: a stop is an end_turn.
    stop_reason: STOP_REASONS[replyFinish(reply)],
    stop_sequence: null,
    usage: usageOf(settled),
  };
}

/** One of Anthropic's stream events: its `type` and its fields (what an SSE event's data, or a Bedrock chunk's bytes, carry). */
export type MessageEvent = { type: string } & Record<string, unknown>;

/** Anthropic's event stream of a reply, as server-sent events. */
export async function* frames(events: AsyncIterable<MeteredEvent>, meta: CallMeta): AsyncGenerator<string> {
  for await (const event of messageEvents(events, meta)) yield sseEvent(event.type, event);
}

/** Anthropic's events of a reply (framed as server-sent events on /v1/messages, as Bedrock's chunks on the door's InvokeModelWithResponseStream). */
export async function* messageEvents(events: AsyncIterable<MeteredEvent>, meta: CallMeta): AsyncGenerator<MessageEvent> {
  const event = (type: string, data: Record<string, unknown> = {}): MessageEvent => ({ type, ...data });
  yield event('message_start', {
    message: {
      id: messageId(meta),
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageOf({ tokensIn: 0, tokensOut: 0, cost: 0 }),
    },
  });
  yield event('ping');

  // Blocks are numbered from 0 in the order they start; one is open at a time, as Anthropic sends them.
  let blocks = 0;
  let open: { index: number; kind: 'text' | 'tool' | 'thinking' } | undefined;
  const calls = new StreamedCalls();
  const blockOfCall = new Map<number, number>();
  let finish: FinishReason | undefined;
  let settled: Settled | undefined;
  // The stop of the open block (a thinking block's signature and a redacted block close one that is open).
  const close = () => {
    const stop = open ? event('content_block_stop', { index: open.index }) : undefined;
    open = undefined;
    return stop;
  };

  // A thinking block streams its text, then its signature, which ends it.
  const startBlock = function* (kind: 'text' | 'tool' | 'thinking', block: Record<string, unknown>) {
    const stop = close();
    if (stop) yield stop;
    open = { index: blocks++, kind };
    yield event('content_block_start', { index: open.index, content_block: block });
  };

  for await (const item of guarded(events)) {
    switch (item.kind) {
      case 'reasoning':
        if (!item.text) break;
        if (open?.kind !== 'thinking') yield* startBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
        yield event('content_block_delta', { index: (open as { index: number }).index, delta: { type: 'thinking_delta', thinking: item.text } });
        break;
      case 'reasoning_signature':
        if (open?.kind !== 'thinking') yield* startBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
        yield event('content_block_delta', {
          index: (open as { index: number }).index,
          delta: { type: 'signature_delta', signature: item.signature },
        });
        yield close() as MessageEvent;
        break;
      case 'reasoning_redacted':
        yield* startBlock('thinking', { type: 'redacted_thinking', data: item.data });
        yield close() as MessageEvent;
        break;
      case 'text':
        if (!item.text) break;
        if (open?.kind !== 'text') {
          const stop = close();
          if (stop) yield stop;
          open = { index: blocks++, kind: 'text' };
          yield event('content_block_start', { index: open.index, content_block: { type: 'text', text: '' } });
        }
        yield event('content_block_delta', { index: open.index, delta: { type: 'text_delta', text: item.text } });
        break;
      case 'tool_call': {
        const stop = close();
        if (stop) yield stop;
        calls.open(item.index, item.id, item.name);
        open = { index: blocks++, kind: 'tool' };
        blockOfCall.set(item.index, open.index);
        yield event('content_block_start', { index: open.index, content_block: { type: 'tool_use', id: item.id, name: item.name, input: {} } });
        break;
      }
      case 'tool_arguments': {
        const index = blockOfCall.get(item.index);
        if (index !== undefined && item.text) {
          calls.add(item.index, item.text);
          yield event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: item.text } });
        }
        break;
      }
      case 'stop':
        finish = item.finishReason;
        break;
      case 'settled':
        settled = item;
        break;
      case 'failed': {
        const failure = streamFailure(item.error);
        yield anthropicErrorBody(failure.statusCode, failure.message);
        return;
      }
      // `usage` is the platform's count; the settled event says what the call was recorded as.
    }
  }
  const stop = close();
  if (stop) yield stop;
  const counted = settled ?? { tokensIn: 0, tokensOut: 0, cost: 0 };
  yield event('message_delta', {
    delta: { stop_reason: STOP_REASONS[finishOf(finish, calls.size > 0)], stop_sequence: null },
    usage: { ...usageOf(counted), cost_usd: usdOf(counted.cost) },
  });
  yield event('message_stop');
}
