/**
 * Reads OpenAI's streamed chat completion (server-sent events of chat.completion.chunk objects, ended
 * by `data: [DONE]`) from bytes that arrive in arbitrary pieces: the hosted API's response body and a
 * dedicated endpoint's PayloadParts (TGI's Messages API and LMI stream the same events).
 *
 * Tool calls stream as `delta.tool_calls`: the first piece of call `index` carries its id and name
 * (a `tool_call` event), every piece may carry some of its arguments' text (`tool_arguments`).
 */
import type { UpstreamError } from '../errors';
import { upstreamDetail } from './errors';
import { argumentsText, openAiFinish } from './openai';
import type { ChatStreamEvent } from './types';

interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

interface Chunk {
  model?: unknown;
  choices?: { delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: { message?: unknown } | string;
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);

/**
 * The events of an SSE byte stream. `failed` makes the error of an in-stream `error` event (what an
 * OpenAI-compatible server sends when generation fails after it began); `unreadable` the error of a
 * `data:` line that is not JSON.
 */
export async function* openAiStreamEvents(
  bytes: AsyncIterable<Uint8Array>,
  errors: { failed: (detail?: string) => UpstreamError; unreadable: () => UpstreamError },
): AsyncGenerator<ChatStreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  // The calls opened so far, by the server's index; events number them in the order they opened.
  const opened = new Map<number, number>();
  for await (const piece of bytes) {
    buffer += decoder.decode(piece, { stream: true });
    let newline: number;
    while (!done && (newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (!line.startsWith('data:')) continue; // event names, ids, comments and blank separators
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        done = true;
        break;
      }
      let chunk: Chunk;
      try {
        chunk = JSON.parse(data) as Chunk;
      } catch {
        throw errors.unreadable();
      }
      if (chunk.error) throw errors.failed(upstreamDetail(typeof chunk.error === 'string' ? chunk.error : chunk.error.message));
      const choice = chunk.choices?.[0];
      if (typeof choice?.delta?.content === 'string' && choice.delta.content) yield { kind: 'text', text: choice.delta.content };
      const calls = choice?.delta?.tool_calls;
      for (const call of (Array.isArray(calls) ? calls : []) as ToolCallDelta[]) {
        const wireIndex = typeof call.index === 'number' ? call.index : opened.size;
        let index = opened.get(wireIndex);
        if (index === undefined) {
          index = opened.size;
          opened.set(wireIndex, index);
          const id = typeof call.id === 'string' || typeof call.id === 'number' ? String(call.id) : `call_${index}`;
          yield { kind: 'tool_call', index, id, name: typeof call.function?.name === 'string' ? call.function.name : '' };
        }
        const args = call.function?.arguments;
        if (args !== undefined && args !== null && args !== '') yield { kind: 'tool_arguments', index, text: argumentsText(args) };
      }
      if (typeof choice?.finish_reason === 'string') {
        yield { kind: 'stop', finishReason: opened.size > 0 ? 'tool_calls' : openAiFinish(choice.finish_reason) };
      }
      if (chunk.usage) {
        yield {
          kind: 'usage',
          tokensIn: count(chunk.usage.prompt_tokens),
          tokensOut: count(chunk.usage.completion_tokens),
          modelId: typeof chunk.model === 'string' ? chunk.model : undefined,
        };
      }
    }
    if (done) return;
  }
  // The connection closed without [DONE]: the answer was cut off.
  throw errors.failed('The stream ended before it was complete');
}
