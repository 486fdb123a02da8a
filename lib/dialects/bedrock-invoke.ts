/**
 * Bedrock's InvokeModel and InvokeModelWithResponseStream for Claude (POST /bedrock/model/{modelId}/invoke
 * and /invoke-with-response-stream): the body Bedrock takes for Anthropic's models, which is
 * Anthropic's Messages request with `anthropic_version: "bedrock-2023-05-31"` instead of the
 * anthropic-version header, `anthropic_beta` (a list) instead of the anthropic-beta header, and the
 * model in the path instead of the body. What Claude Code sends with CLAUDE_CODE_USE_BEDROCK=1.
 *
 * Read by the Messages dialect (lib/dialects/anthropic-messages.ts), so it takes and checks exactly
 * what /v1/messages does (thinking, tools, images, cache_control, top_k, ...), its betas filtered to
 * what the model takes the same way. Any chat resource answers it, as /v1/messages answers for any.
 *
 * Written: InvokeModel's body is the model's native JSON, Anthropic's `message`. The stream is AWS's
 * event stream (lib/dialects/eventstream.ts) of `chunk` events, each a PayloadPart whose `bytes` (base64
 * in the event's JSON, as the SDKs decode a blob) are one Anthropic stream event's JSON; the
 * message_stop event carries `amazon-bedrock-invocationMetrics` (input, output and cache token counts,
 * invocation and first-byte latency), as Bedrock adds it. A failure mid-stream is the stream's
 * exception event (throttlingException, ...), which the SDKs throw while iterating.
 */
import type { ChatReply } from '../platforms/types';
import { messageEvents, type MessageEvent } from './anthropic-messages-answer';
import { parse as parseMessages } from './anthropic-messages';
import { guarded, promptTokens } from './common';
import { streamException, streamType } from './bedrock-converse';
import { eventMessage } from './eventstream';
import type { InvokeBody } from './schemas/bedrock';
import type { CallMeta, MeteredEvent, ParsedChat, Settled } from './types';

export { answer } from './anthropic-messages-answer';
export { streamType };

/** The body, as its schema (./schemas/bedrock.ts) lets it through. */
export type { InvokeBody };

/** The body with the model its path named. */
export type InvokeInput = InvokeBody & { modelId: string };

export type InvokeCall = ParsedChat;

/** The refused feature's field, in the body's words: the Messages API's. */
export { fields } from './anthropic-messages';

export function parse(input: InvokeInput, _headers?: Record<string, string | undefined>, stream = false): InvokeCall {
  const { modelId, anthropic_version: _version, anthropic_beta: betas, ...body } = input;
  return parseMessages({ ...body, model: modelId, stream }, { 'anthropic-beta': betas?.join(',') });
}

/** The same, streamed: InvokeModelWithResponseStream's body is InvokeModel's. */
export const parseStream = (input: InvokeInput, headers?: Record<string, string | undefined>) => parse(input, headers, true);

/** InvokeModel's headers, which Bedrock sends for every model whatever its body says: the tokens billed, and the latency. */
export const headers = (reply: ChatReply, settled: Settled) => ({
  'x-amzn-bedrock-input-token-count': String(settled.tokensIn),
  'x-amzn-bedrock-output-token-count': String(settled.tokensOut),
  'x-amzn-bedrock-invocation-latency': String(reply.latencyMs),
});

/** What Bedrock adds to the message_stop event: the tokens the call was recorded as, and its latencies in milliseconds. */
function invocationMetrics(settled: Settled | undefined, invocationLatency: number, firstByteLatency: number) {
  const { cached, written } = settled ? promptTokens(settled) : { cached: 0, written: 0 };
  return {
    inputTokenCount: settled?.tokensIn ?? 0,
    outputTokenCount: settled?.tokensOut ?? 0,
    invocationLatency,
    firstByteLatency,
    ...(cached > 0 && { cacheReadInputTokenCount: cached }),
    ...(written > 0 && { cacheWriteInputTokenCount: written }),
  };
}

/** One Anthropic event as InvokeModelWithResponseStream's chunk: a PayloadPart of its JSON. */
const chunk = (event: MessageEvent) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') });

/** InvokeModelWithResponseStream's events. */
export async function* frames(events: AsyncIterable<MeteredEvent>, meta: CallMeta): AsyncGenerator<Buffer> {
  const started = Date.now();
  let firstByte: number | undefined;
  let settled: Settled | undefined;
  // The stream's failure is the door's exception event, not Anthropic's `error` event: the events
  // stop at it, and what Anthropic's writer would still close is not sent.
  let failure: { error: unknown } | undefined;
  async function* untilFailure(): AsyncGenerator<MeteredEvent> {
    for await (const item of guarded(events)) {
      if (item.kind === 'failed') {
        failure = { error: item.error };
        return;
      }
      if (item.kind === 'settled') settled = item;
      yield item;
    }
  }
  for await (const event of messageEvents(untilFailure(), meta)) {
    if (failure) break;
    firstByte ??= Date.now() - started;
    if (event.type === 'message_stop') {
      event['amazon-bedrock-invocationMetrics'] = invocationMetrics(settled, Date.now() - started, firstByte);
    }
    yield chunk(event);
  }
  if (failure) yield streamException(failure.error);
}
