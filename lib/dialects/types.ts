/**
 * The wire dialects (lib/dialects/): pure translations between an API's wire format (OpenAI's chat
 * completions, embeddings and Responses APIs, Anthropic's Messages API) and the service's canonical
 * model call (lib/platforms/types.ts). No I/O, no tables, no platform clients: a dialect reads a
 * validated request body into a canonical request, and writes a canonical reply (or the metered
 * call's stream of events) in its wire format. The metered call (lib/calls) sits between the two.
 *
 * Every chat dialect exports the same four things:
 *
 *   parse(body)                        -> { model, request, stream, ...its options }: the body as
 *                                         its schema let it through; semantic checks the schema
 *                                         cannot make throw BadRequest naming the field (`param`)
 *   answer(reply, settled, meta, call) -> the body of the answer that is not streamed
 *   frames(events, meta, call)         -> the text of the streamed answer (server-sent events); a
 *                                         failure thrown by `events` becomes the dialect's own
 *                                         in-stream error event, and the stream ends
 *   errorBody(...)                     -> the dialect's error body, where it has its own shape
 *
 * where `call` is what `parse` returned (its options ride along: OpenAI's include_usage, the
 * Responses API's echoed settings).
 */
import type { Settled } from '../calls/stream';
import type { ChatRequest, ChatStreamEvent } from '../platforms/types';

/**
 * What a call cost once settled: the tokens counted (the platform's, or the estimate) and their price
 * in nano-dollars (core/money.ts; a body shows it as `cost_usd`, unrounded); what went through the
 * prompt cache and the tier that served it, where they apply.
 */
export type { Settled } from '../calls/stream';

/**
 * One event of a metered stream: the platform's events as they come, then exactly one `settled`
 * (what the call was recorded as). If the platform fails mid-stream, the iterator settles what was
 * produced and then throws a domain error instead of yielding `settled`. Returning the iterator early
 * (the client hung up) stops the model call; it settles too.
 */
export type MeteredEvent = ChatStreamEvent | ({ kind: 'settled' } & Settled);

/** What every answer names: the call (its wire ids are made from it), the model as the client named it, and when (Unix seconds). */
export interface CallMeta {
  /** The call's id (a UUID); each dialect prefixes it its own way (chatcmpl-, resp_, msg_). */
  id: string;
  model: string;
  created: number;
}

/** A chat request as a dialect read it: the model the client named, the canonical request without its platform target, and whether to stream. */
export interface ParsedChat {
  model: string;
  request: Omit<ChatRequest, 'target'>;
  stream: boolean;
}
