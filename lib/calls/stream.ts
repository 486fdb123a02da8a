import type { ChatStreamEvent, FinishReason } from '../platforms/types';
import {
  explainFailure,
  failedCall,
  inputBoundUsage,
  jsonOutputFailure,
  releaseCall,
  settlementOf,
  type PreparedCall,
  type Settlement,
} from './metered';

/**
 * A metered call answered as a stream (step 4 of lib/calls/metered.ts for `stream: true`): the
 * platform's events, with the settlement guaranteed exactly once whatever ends the stream.
 *
 *   - The stream's first event is awaited before this returns, so a platform that refuses the call
 *     (throttled, endpoint gone, timed out) is an error the entry point answers with its status, not
 *     a stream that starts and fails.
 *   - Then the platform's text and tool-call events pass through as they come; its own stop and usage
 *     are kept back. When it ends, exactly one `stop` event (the platform's reason; `length` when the
 *     deadline cut it) and then one `settled` event (the call recorded: its tokens and cost) close the
 *     stream.
 *   - A platform failure mid-stream: the call settles to what was produced, then the iterator throws
 *     the failure (the dialect sends its in-stream error event).
 *   - The consumer stops reading (the client hung up: the generator is returned or thrown into): the
 *     platform call is aborted and the call settles to what was produced.
 *   - The deadline (the function's remaining time less a margin for the settle): the platform call is
 *     aborted, the stream ends with `stop` `length` and settles to what was produced. A function killed
 *     at its timeout would never settle; this ends the stream before that can happen.
 *
 * What was produced is the platform's usage when it reported one; otherwise the input bound the call
 * reserved (its text, images, tools and output schema: the platform read all of it before its first
 * byte) and an estimate of the output (the produced text's UTF-8 bytes at ESTIMATE_BYTES_PER_TOKEN).
 * A stream that produced nothing
 * releases its reservations and records nothing, as a failed call does.
 */

/** Bytes per token of the estimate used when a stream ends before the platform reported its usage. */
const ESTIMATE_BYTES_PER_TOKEN = 4;
const estimate = (text: string) => Math.ceil(Buffer.byteLength(text, 'utf8') / ESTIMATE_BYTES_PER_TOKEN);

/** What a settled call reports: its recorded tokens and cost, what went through the prompt cache and the tier that served it. */
export type Settled = Pick<Settlement, 'tokensIn' | 'tokensOut' | 'cost' | 'cache' | 'serviceTier'>;

/** What the settled stream reports last. */
type SettledEvent = { kind: 'settled' } & Settled;

export type MeteredEvent = Exclude<ChatStreamEvent, { kind: 'usage' }> | SettledEvent;

export interface StreamOptions {
  /** Records the settlement (the entry point's own write) and counts it. */
  record: (settlement: Settlement) => Promise<void>;
  /** Epoch ms by which the stream must have ended and settled. */
  deadlineAt?: number;
}

const DEADLINE = Symbol('deadline');

/** What a dialect is told of a settled call (nothing recorded: zero). */
function settledOf(settlement: Settlement | undefined): Settled {
  if (!settlement) return { tokensIn: 0, tokensOut: 0, cost: 0 };
  const { tokensIn, tokensOut, cost, cache, serviceTier } = settlement;
  return { tokensIn, tokensOut, cost, ...(cache && { cache }), ...(serviceTier && { serviceTier }) };
}

export async function openStream(call: PreparedCall, options: StreamOptions): Promise<AsyncGenerator<MeteredEvent>> {
  const upstream = new AbortController();
  const events = call.platform.chatStream(call.request, upstream.signal)[Symbol.asyncIterator]();
  let first: IteratorResult<ChatStreamEvent>;
  try {
    first = await events.next();
  } catch (err) {
    return failedCall(call, err);
  }
  return metered(call, options, first, events, upstream);
}

/** What an event adds to the answer's text, for the estimate of a stream whose usage never came (reasoning is output too). */
function producedText(event: Exclude<ChatStreamEvent, { kind: 'usage' | 'stop' }>): string {
  switch (event.kind) {
    case 'tool_call':
      return event.name;
    case 'reasoning_signature':
      return '';
    case 'reasoning_redacted':
      return event.data;
    default:
      return event.text;
  }
}

async function* metered(
  call: PreparedCall,
  options: StreamOptions,
  first: IteratorResult<ChatStreamEvent>,
  events: AsyncIterator<ChatStreamEvent>,
  upstream: AbortController,
): AsyncGenerator<MeteredEvent> {
  let produced = '';
  // The answer's text alone, for the check of a JSON answer (produced also counts the tool calls).
  let text = '';
  let calledTools = false;
  let usage: Extract<ChatStreamEvent, { kind: 'usage' }> | undefined;
  let finished: FinishReason | undefined;
  let settled = false;

  const settle = async (): Promise<Settlement | undefined> => {
    settled = true;
    if (!usage && !produced) {
      await releaseCall(call);
      return undefined;
    }
    // Cut off before the platform said what it used: charged the input bound at the price it was held at.
    const input = usage ? { tokensIn: usage.tokensIn, ...(usage.cache && { cache: usage.cache }) } : inputBoundUsage(call.request, call.inputBound);
    const settlement = settlementOf(call, {
      ...input,
      tokensOut: usage?.tokensOut ?? estimate(produced),
      latencyMs: usage?.latencyMs ?? Date.now() - call.started.getTime(),
      modelId: usage?.modelId,
      ...(usage?.serviceTier && { serviceTier: usage.serviceTier }),
    });
    await options.record(settlement);
    return settlement;
  };

  // Only the platform's failures are caught here; an error thrown into the generator (the consumer
  // destroyed with an error: the client hung up) goes straight to `finally`.
  let failure: unknown = undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline =
    options.deadlineAt === undefined
      ? undefined
      : new Promise<typeof DEADLINE>((resolve) => {
          timer = setTimeout(() => resolve(DEADLINE), Math.max(0, (options.deadlineAt as number) - Date.now()));
          timer.unref?.();
        });
  const pull = async (): Promise<IteratorResult<ChatStreamEvent>> => {
    try {
      const next = deadline ? await Promise.race([events.next(), deadline]) : await events.next();
      if (next !== DEADLINE) return next;
      finished = 'length';
      upstream.abort();
      void events.return?.(undefined).catch(() => undefined);
      return { done: true, value: undefined };
    } catch (err) {
      failure = await explainFailure(call.resource, err);
      return { done: true, value: undefined };
    }
  };

  try {
    for (let next = first; !next.done; next = await pull()) {
      const event = next.value;
      if (event.kind === 'usage') usage = event;
      else if (event.kind === 'stop') finished ??= event.finishReason;
      else {
        produced += producedText(event);
        if (event.kind === 'text') text += event.text;
        if (event.kind === 'tool_call') calledTools = true;
        yield event;
      }
    }
    // The call is recorded first: nothing that follows (the check of a JSON answer included, however
    // long it takes) can leave a call the platform charged unrecorded.
    const settlement = await settle();
    // A JSON answer is checked once whole (its pieces have been sent): one that is not what was asked
    // is told as a failure, as a platform's would be.
    failure ??= jsonOutputFailure(call.request, text, { calledTools, finishReason: finished });
    if (failure !== undefined) {
      // The platform's failure as the platform adapter made it (a domain error, or what explainFailure said).
      throw failure instanceof Error ? failure : new Error('The model call failed');
    }
    yield { kind: 'stop', finishReason: finished ?? 'stop' };
    yield { kind: 'settled', ...settledOf(settlement) };
  } finally {
    clearTimeout(timer);
    // The client hung up (the consumer returned or threw into this generator): stop the model, settle.
    if (!settled) {
      upstream.abort();
      await events.return?.().catch(() => undefined);
      await settle();
    }
  }
}
