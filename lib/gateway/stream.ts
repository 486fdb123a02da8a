import { toHttpError } from '../http/errors';
import { openAiErrorBody } from '../http/middlewares/error-responder';
import { reply, streamed } from '../http/types';
import { openStream, type MeteredEvent } from '../calls/stream';
import type { PreparedCall } from '../calls/metered';
import { completion, completionId, prepareCompletion, type CompletionBody, type CompletionInput } from './completions';
import { recordGatewayCall } from './record';

/**
 * POST /v1/chat/completions with `stream: true`: OpenAI's server-sent events (chat.completion.chunk
 * objects, then `data: [DONE]`) over the metered stream (lib/calls/stream.ts), which settles the call
 * exactly once whatever ends it: its end, a platform failure, the client hanging up, the function's
 * deadline.
 *
 *   - The cost is known only at the end, so it cannot be a header: the usage chunk
 *     (stream_options.include_usage) carries it as `usage.cost_usd`, beside OpenAI's token counts.
 *   - A platform failure mid-stream is an `error` event in OpenAI's streaming form (`data:
 *     {"error": {...}}`, which the official clients raise as an APIError) and no [DONE].
 */

export const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };

/** Time kept back from the function's timeout for the settle and the last chunks. */
const SETTLE_MARGIN_MS = 5_000;

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

async function* chunks(call: PreparedCall, body: CompletionBody, events: AsyncGenerator<MeteredEvent>): AsyncGenerator<string> {
  const created = Math.floor(Date.now() / 1000);
  const base = { id: completionId(call), object: 'chat.completion.chunk', created, model: body.model, system_fingerprint: null };
  const choice = (delta: Record<string, unknown>, finish: string | null) =>
    sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  yield choice({ role: 'assistant', content: '' }, null);
  try {
    for await (const event of events) {
      if (event.kind === 'text') yield choice({ content: event.text }, null);
      else if (event.kind === 'stop') yield choice({}, event.finishReason);
      else if (event.kind === 'settled') {
        if (body.stream_options?.include_usage) {
          const { tokensIn, tokensOut, costUsd } = event;
          yield sse({
            ...base,
            choices: [],
            usage: { prompt_tokens: tokensIn, completion_tokens: tokensOut, total_tokens: tokensIn + tokensOut, cost_usd: costUsd },
          });
        }
        yield 'data: [DONE]\n\n';
      }
    }
  } catch (err) {
    // The platform broke off (the call is settled already): the client hears it in OpenAI's streaming error form, and no [DONE].
    const mapped = toHttpError(err, { openAi: true });
    yield sse(openAiErrorBody(mapped?.statusCode ?? 502, mapped?.message ?? 'The model call failed', undefined, mapped));
  }
}

export async function completionStream(input: CompletionInput & { remainingMs?: () => number }): Promise<AsyncGenerator<string>> {
  const call = await prepareCompletion(input);
  const remaining = input.remainingMs?.();
  const events = await openStream(call, {
    record: (settlement) => recordGatewayCall(call, settlement, input.requestId, true),
    deadlineAt: remaining === undefined ? undefined : Date.now() + Math.max(0, remaining - SETTLE_MARGIN_MS),
  });
  return chunks(call, input.body, events);
}

/**
 * The answer of POST /v1/chat/completions, streamed or not: what both of its functions return (the
 * HTTP API route's, which sends a stream all at once, and the function URL's, which streams it).
 */
export async function answerCompletion(input: CompletionInput & { remainingMs?: () => number }) {
  if (input.body.stream) return streamed(200, await completionStream(input), SSE_HEADERS);
  const { response, costUsd } = await completion(input);
  return reply(200, response, { 'x-model-ops-cost-usd': costUsd.toFixed(6) });
}
