/**
 * The Responses API's event stream of a metered call (the events and their order: lib/dialects/openai-responses.ts).
 * The model's reasoning streams as a `reasoning` item whose `reasoning_text` part grows by
 * response.reasoning_text.delta events, as OpenAI streams a reasoning model's raw reasoning.
 */
import { usdOf } from '../../core/money';
import type { FinishReason } from '../platforms/types';
import { StreamedCalls, finishOf, guarded, sseEvent, streamFailure } from './common';
import {
  callItem,
  callItemId,
  ending,
  messageItem,
  messageItemId,
  reasoningItem,
  reasoningItemId,
  responseObject,
  textPart,
  usageOf,
  type OutputItem,
} from './openai-responses-answer';
import type { ResponsesCall, Status } from './openai-responses-request';
import type { CallMeta, MeteredEvent, Settled } from './types';
/** The Responses API's event stream of a reply. */
export async function* frames(events: AsyncIterable<MeteredEvent>, meta: CallMeta, call: Pick<ResponsesCall, 'echo'>): AsyncGenerator<string> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sseEvent(type, { type, sequence_number: sequence++, ...data });
  const output: OutputItem[] = [];
  const started = responseObject(meta, call.echo, { status: 'in_progress', output: [], usage: null });
  yield event('response.created', { response: started });
  yield event('response.in_progress', { response: started });

  // The item being written: a message (its text so far) or a call; it is done when another begins or the reply ends.
  let open:
    | { kind: 'message'; index: number; id: string; text: string }
    | { kind: 'reasoning'; index: number; id: string; text: string }
    | { kind: 'call'; index: number; id: string; platformIndex: number }
    | undefined;
  // All the reasoning streamed, for usage's reasoning_tokens (as the answer that is not streamed counts it).
  let reasoning = '';
  const calls = new StreamedCalls();
  const itemOfCall = new Map<number, { index: number; id: string }>();
  let finish: FinishReason | undefined;
  let settled: Settled | undefined;

  function* startMessage(): Generator<string> {
    const index = output.length;
    const id = messageItemId(meta, index);
    open = { kind: 'message', index, id, text: '' };
    output.push({ id, type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    yield event('response.output_item.added', { output_index: index, item: output[index] });
    yield event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: textPart('') });
  }

  // A reasoning item as OpenAI streams one (and its SDK's accumulator rebuilds it): the item, its one
  // reasoning_text part, the text's deltas, then the text, the part and the item done.
  function* startReasoning(): Generator<string> {
    const index = output.length;
    // The first is the id the answer that is not streamed gives its one reasoning item.
    const id = index === 0 ? reasoningItemId(meta) : `${reasoningItemId(meta)}_${index}`;
    open = { kind: 'reasoning', index, id, text: '' };
    output.push({ id, type: 'reasoning', summary: [], content: [] });
    yield event('response.output_item.added', { output_index: index, item: output[index] });
    yield event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
  }

  function* close(status: Status): Generator<string> {
    if (open?.kind === 'reasoning') {
      const { index, id, text } = open;
      yield event('response.reasoning_text.done', { item_id: id, output_index: index, content_index: 0, text });
      yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text } });
      output[index] = reasoningItem(id, text);
      yield event('response.output_item.done', { output_index: index, item: output[index] });
    } else if (open?.kind === 'message') {
      const { index, id, text } = open;
      yield event('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
      yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part: textPart(text) });
      output[index] = messageItem(id, text, status);
      yield event('response.output_item.done', { output_index: index, item: output[index] });
    } else if (open?.kind === 'call') {
      const { index, id, platformIndex } = open;
      const done = calls.get(platformIndex);
      if (done) {
        yield event('response.function_call_arguments.done', { item_id: id, output_index: index, name: done.name, arguments: done.arguments });
        output[index] = callItem(id, done, status);
        yield event('response.output_item.done', { output_index: index, item: output[index] });
      }
    }
    open = undefined;
  }

  for await (const item of guarded(events)) {
    switch (item.kind) {
      case 'reasoning':
        if (!item.text) break;
        if (open?.kind !== 'reasoning') {
          yield* close('completed');
          yield* startReasoning();
        }
        if (open?.kind === 'reasoning') {
          open.text += item.text;
          reasoning += item.text;
          yield event('response.reasoning_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: item.text });
        }
        break;
      case 'text':
        if (!item.text) break;
        if (open?.kind !== 'message') {
          yield* close('completed');
          yield* startMessage();
        }
        if (open?.kind === 'message') {
          open.text += item.text;
          yield event('response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: item.text, logprobs: [] });
        }
        break;
      case 'tool_call': {
        yield* close('completed');
        calls.open(item.index, item.id, item.name);
        const index = output.length;
        const id = callItemId(meta, index);
        open = { kind: 'call', index, id, platformIndex: item.index };
        itemOfCall.set(item.index, { index, id });
        output.push(callItem(id, { id: item.id, name: item.name, arguments: '' }, 'in_progress'));
        yield event('response.output_item.added', { output_index: index, item: output[index] });
        break;
      }
      case 'tool_arguments': {
        const target = itemOfCall.get(item.index);
        if (target && item.text) {
          calls.add(item.index, item.text);
          yield event('response.function_call_arguments.delta', { item_id: target.id, output_index: target.index, delta: item.text });
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
        const failure = streamFailure(item.error, { openAi: true });
        const code = failure.statusCode === 429 ? 'rate_limit_exceeded' : 'server_error';
        yield event('response.failed', {
          response: responseObject(meta, call.echo, { status: 'failed', output, usage: null, error: { code, message: failure.message } }),
        });
        return;
      }
      // `usage` is the platform's count; the settled event says what the call was recorded as.
    }
  }
  const { status, incomplete_details } = ending(finishOf(finish, calls.size > 0));
  // A reply with no message or call in it has one empty message, as the answer that is not streamed has.
  if (!output.some((o) => o.type !== 'reasoning')) {
    yield* close('completed');
    yield* startMessage();
  }
  yield* close(status === 'completed' ? 'completed' : 'incomplete');
  const counted = settled ?? { tokensIn: 0, tokensOut: 0, cost: 0 };
  const usage = { ...usageOf(counted, reasoning), cost_usd: usdOf(counted.cost) };
  yield event(status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: responseObject(meta, call.echo, { status, output, usage, incomplete_details, settled: counted }),
  });
}
