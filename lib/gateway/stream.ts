import { flushMetrics } from '../../core/observability';
import { toHttpError } from '../http/errors';
import { reply, streamed } from '../http/types';
import { openAiErrorBody } from '../http/middlewares/error-responder';
import { textOf, type ChatStreamEvent, type FinishReason } from '../platforms/types';
import { completion, completionId, prepareCall, releaseCall, settleCall, type CompletionBody, type PreparedCall } from './completions';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';

/**
 * POST /v1/chat/completions with `stream: true`: OpenAI's server-sent events (chat.completion.chunk
 * objects, then `data: [DONE]`), with the budgets held exactly as the non-streaming path holds them
 * (completions.ts): reserved before the model is asked, settled to the true cost after.
 *
 *   - The stream's first event is awaited before the answer starts, so a platform that refuses the
 *     call (throttled, endpoint gone, timed out) is an HTTP error with its status, not a 200 stream.
 *   - Afterwards the chunks go out as the platform sends them. The cost is known only at the end, so
 *     it cannot be a header: the usage chunk (stream_options.include_usage) carries it as
 *     `usage.cost_usd`, beside OpenAI's token counts.
 *   - A platform failure mid-stream is an `error` event in OpenAI's streaming form (`data:
 *     {"error": {...}}`, which the official clients raise as an APIError) and no [DONE].
 *   - Whatever ends the stream - its end, a platform failure, the client hanging up (the consumer
 *     stops reading: the generator is returned or thrown into) - the call settles exactly once: to the
 *     platform's usage when it reported one, else to an estimate of what was produced (the prompt and
 *     the text sent, at ESTIMATE_BYTES_PER_TOKEN). A stream that produced no text settles to zero, as
 *     a failed call does.
 */

/** Bytes per token of the estimate used when a stream ends before the platform reported its usage. */
export const ESTIMATE_BYTES_PER_TOKEN = 4;
const estimate = (text: string) => Math.ceil(Buffer.byteLength(text, 'utf8') / ESTIMATE_BYTES_PER_TOKEN);

export const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

export async function completionStream(
  input: { body: CompletionBody; key: ApiKey; user: User; requestId: string },
  now = new Date(),
): Promise<AsyncGenerator<string>> {
  const call = await prepareCall(input, now);
  const upstream = new AbortController();
  const events = call.platform.chatStream(call.request, upstream.signal)[Symbol.asyncIterator]();
  let first: IteratorResult<ChatStreamEvent>;
  try {
    first = await events.next();
  } catch (err) {
    await releaseCall(call);
    throw err;
  }
  return chunks(call, input.body, first, events, upstream);
}

async function* chunks(
  call: PreparedCall,
  body: CompletionBody,
  first: IteratorResult<ChatStreamEvent>,
  events: AsyncIterator<ChatStreamEvent>,
  upstream: AbortController,
): AsyncGenerator<string> {
  const created = Math.floor(Date.now() / 1000);
  const base = { id: completionId(call), object: 'chat.completion.chunk', created, model: body.model, system_fingerprint: null };
  const choice = (delta: Record<string, unknown>, finish: string | null) =>
    sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });

  let produced = '';
  let usage: Extract<ChatStreamEvent, { kind: 'usage' }> | undefined;
  let finished: FinishReason | undefined;
  let settled = false;
  const settle = async () => {
    settled = true;
    if (!usage && !produced) return releaseCall(call);
    const prompt = [call.request.system ?? '', ...call.request.messages.map((m) => textOf(m.content))].join('');
    const outcome = await settleCall(call, {
      tokensIn: usage?.tokensIn ?? estimate(prompt),
      tokensOut: usage?.tokensOut ?? estimate(produced),
      latencyMs: usage?.latencyMs ?? Date.now() - call.started.getTime(),
      modelId: usage?.modelId,
    });
    // The request log flushed the invocation's metrics when the stream began; these come after it.
    flushMetrics();
    return outcome;
  };

  // Only the platform's failures are caught here; an error thrown into the generator (the consumer
  // destroyed with an error: the client hung up) goes straight to `finally`.
  let failure: unknown;
  const pull = async (): Promise<IteratorResult<ChatStreamEvent>> => {
    try {
      return await events.next();
    } catch (err) {
      failure = err;
      return { done: true, value: undefined };
    }
  };

  try {
    yield choice({ role: 'assistant', content: '' }, null);
    for (let next = first; !next.done; next = await pull()) {
      const event = next.value;
      if (event.kind === 'text') {
        produced += event.text;
        yield choice({ content: event.text }, null);
      } else if (event.kind === 'stop') finished = event.finishReason;
      else if (event.kind === 'usage') usage = event;
    }
    if (failure !== undefined) {
      // The platform broke off: the client hears it in OpenAI's streaming error form, and no [DONE].
      await settle();
      const mapped = toHttpError(failure, { openAi: true });
      yield sse(openAiErrorBody(mapped?.statusCode ?? 502, mapped?.message ?? 'The model call failed', undefined, mapped));
      return;
    }
    yield choice({}, finished ?? 'stop');
    const outcome = await settle();
    if (body.stream_options?.include_usage) {
      const { tokensIn, tokensOut, costUsd } = outcome ?? { tokensIn: 0, tokensOut: 0, costUsd: 0 };
      yield sse({
        ...base,
        choices: [],
        usage: { prompt_tokens: tokensIn, completion_tokens: tokensOut, total_tokens: tokensIn + tokensOut, cost_usd: costUsd },
      });
    }
    yield 'data: [DONE]\n\n';
  } finally {
    // The client hung up (the consumer returned or threw into this generator): stop the model, settle.
    if (!settled) {
      upstream.abort();
      await events.return?.().catch(() => undefined);
      await settle();
    }
  }
}

/**
 * The answer of POST /v1/chat/completions, streamed or not: what both of its functions return (the
 * HTTP API route's, which sends a stream all at once, and the function URL's, which streams it).
 */
export async function answerCompletion(input: { body: CompletionBody; key: ApiKey; user: User; requestId: string }) {
  if (input.body.stream) return streamed(200, await completionStream(input), SSE_HEADERS);
  const { response, costUsd } = await completion(input);
  return reply(200, response, { 'x-model-ops-cost-usd': costUsd.toFixed(6) });
}
