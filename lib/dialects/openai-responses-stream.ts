/** The Responses API's event stream of a metered call (the events and their order: lib/dialects/openai-responses.ts). */
import { usdOf } from '../../core/money';
import type { FinishReason } from '../platforms/types';
import { StreamedCalls, finishOf, guarded, sseEvent, streamFailure } from './common';
import {
  callItem,
  callItemId,
  ending,
  messageItem,
  messageItemId,
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
    { kind: 'message'; index: number; id: string; text: string } | { kind: 'call'; index: number; id: string; platformIndex: number } | undefined;
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

  function* close(status: Status): Generator<string> {
    if (open?.kind === 'message') {
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
  // A reply with nothing in it is one empty message, as the answer that is not streamed has.
  if (output.length === 0) yield* startMessage();
  yield* close(status === 'completed' ? 'completed' : 'incomplete');
  const counted = settled ?? { tokensIn: 0, tokensOut: 0, cost: 0 };
  const usage = { ...usageOf(counted), cost_usd: usdOf(counted.cost) };
  yield event(status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: responseObject(meta, call.echo, { status, output, usage, incomplete_details, settled: counted }),
  });
}
