/**
 * What the wire dialects share: the server-sent event framing, inline images, the rules of a tool
 * loop (every call answered, every result answering a call), the tools a request offers, prompt-cache
 * checkpoints and service tiers, and reading a metered stream so that its failure can be told in the
 * dialect's own words.
 */
import { BadRequest } from '../errors';
import { toHttpError, type ErrorRoute, type HttpError } from '../http/errors';
import {
  cacheCheckpoints,
  MAX_CACHE_CHECKPOINTS,
  type CacheTtl,
  type ChatReply,
  type ChatRequest,
  type ChatTurn,
  type ContentPart,
  type FinishReason,
  type ImageMediaType,
  type ReasoningBlock,
  type ReasoningRequest,
  type ServiceTier,
  type SystemPart,
  type SystemPrompt,
  type ToolChoice,
  type ToolSpec,
} from '../platforms/types';
import { MAX_IMAGE_BYTES, type Checkpoint, type OpenAiEffort } from './schemas/shared';
import type { MeteredEvent, Settled } from './types';

// ---------------------------------------------------------------------------------------------
// Server-sent events
// ---------------------------------------------------------------------------------------------

/** One event with data only (OpenAI's chat completions stream). */
export const sseData = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/** One named event (the Responses API and Anthropic's Messages API name each event as its data's `type`). */
export const sseEvent = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A call id in a wire id: the UUID without its hyphens (chatcmpl-…, resp_…, msg_…). */
export const compactId = (id: string) => id.replaceAll('-', '');

/**
 * The events of a metered stream, with the stream's failure as a last `failed` item instead of a
 * throw, so that a dialect answers it with its own in-stream error event. Only the stream's own
 * failures are caught: an error thrown into the consumer (the client hung up) is not one of them.
 * Stopping early returns the stream, which stops the model call and settles it.
 */
export async function* guarded(events: AsyncIterable<MeteredEvent>): AsyncGenerator<MeteredEvent | { kind: 'failed'; error: unknown }> {
  const iterator = events[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<MeteredEvent>;
      try {
        next = await iterator.next();
      } catch (error) {
        finished = true;
        yield { kind: 'failed', error };
        return;
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) await iterator.return?.();
  }
}

/** A failure of a stream as the client hears it: the status and client-safe text toHttpError gives, or a plain 502. */
export function streamFailure(error: unknown, route: ErrorRoute = {}): HttpError | { statusCode: number; message: string; details?: undefined } {
  return toHttpError(error, route) ?? { statusCode: 502, message: 'The model call failed' };
}

/** Why a reply ended: the platform's word, else tool_calls when it called tools, else stop. */
export const finishOf = (reason: FinishReason | undefined, calledTools: boolean): FinishReason => reason ?? (calledTools ? 'tool_calls' : 'stop');

/** The finish reason of a whole reply. */
export const replyFinish = (reply: ChatReply): FinishReason => finishOf(reply.finishReason, (reply.toolCalls?.length ?? 0) > 0);

/**
 * A streamed reply's tool calls in the order they were opened: a platform's `index` may be any number
 * (Converse numbers content blocks, text included), a wire index counts calls from 0.
 */
export class StreamedCalls {
  private readonly byIndex = new Map<number, { wire: number; id: string; name: string; arguments: string }>();

  open(index: number, id: string, name: string): number {
    const wire = this.byIndex.size;
    this.byIndex.set(index, { wire, id, name, arguments: '' });
    return wire;
  }

  /** The call a piece of arguments belongs to (with the piece added), or undefined for a call never opened. */
  add(index: number, text: string) {
    const call = this.byIndex.get(index);
    if (call) call.arguments += text;
    return call;
  }

  get(index: number) {
    return this.byIndex.get(index);
  }

  get size() {
    return this.byIndex.size;
  }

  /** The calls as a reply's toolCalls, in wire order. */
  all() {
    return [...this.byIndex.values()].map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
  }
}

// ---------------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------------

/** The most images one request may carry (Converse's limit); each at most MAX_IMAGE_BYTES (./schemas/shared.ts). */
export const MAX_IMAGES = 20;

const MEDIA_TYPES: Record<string, ImageMediaType> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  // A spelling some clients produce for JPEG.
  'image/jpg': 'image/jpeg',
  'image/gif': 'image/gif',
  'image/webp': 'image/webp',
};

/** Base64 text (standard alphabet, padded). */
export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The format the first bytes of an image say it is in. */
function sniff(head: Buffer): ImageMediaType | undefined {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * An image sent inline (base64 with its media type) as a content part, checked so that a platform
 * never sees one it would refuse: one of the four formats, valid base64, bytes that are that format,
 * and at most MAX_IMAGE_BYTES. `param` names the field in the refusal.
 */
export function inlineImage(mediaType: string, data: string, param: string): ContentPart {
  const type = MEDIA_TYPES[mediaType.toLowerCase()];
  if (!type) throw invalid(param, `the image type must be image/png, image/jpeg, image/gif or image/webp, not '${mediaType.slice(0, 100)}'`);
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) throw invalid(param, 'the image data must be base64');
  const bytes = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (bytes > MAX_IMAGE_BYTES) throw invalid(param, `the image is ${bytes} bytes; the limit is ${MAX_IMAGE_BYTES} bytes (3.75 MB)`);
  // 16 base64 characters are the first 12 bytes: enough to tell the four formats apart.
  const actual = sniff(Buffer.from(data.slice(0, 16), 'base64'));
  if (actual !== type) throw invalid(param, `the data is not a ${type} image${actual ? ` (it is ${actual})` : ''}`);
  return { type: 'image', mediaType: type, data };
}

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/i;

/**
 * An image given as a URL (OpenAI's image_url and input_image): only `data:` URLs with base64 bytes
 * are accepted. The gateway fetches nothing on a client's behalf, so an http(s) URL is refused with a
 * 400 that says what to send instead (the issue allows refusing them; fetching would need SSRF
 * guards, a size cap and a timeout in every call).
 */
export function dataUrlImage(url: string, param: string): ContentPart {
  const match = DATA_URL.exec(url);
  if (!match) {
    if (/^https?:/i.test(url)) {
      throw invalid(param, 'image URLs are not fetched: send the image inline as a data: URL (data:image/png;base64,...)', 'image_url_not_supported');
    }
    throw invalid(param, 'must be a data: URL (data:image/png;base64,...)');
  }
  if (!/;base64$/i.test(match[2] ?? '')) throw invalid(param, 'the data: URL must carry base64 (data:image/png;base64,...)');
  return inlineImage(match[1] ?? '', url.slice(match[0].length), param);
}

/** The request as a whole carries at most MAX_IMAGES images. */
export function checkImageCount(turns: ChatTurn[], param: string): void {
  const count = turns.reduce((n, turn) => n + (typeof turn.content === 'string' ? 0 : turn.content.filter((p) => p.type === 'image').length), 0);
  if (count > MAX_IMAGES) throw invalid(param, `a request may carry at most ${MAX_IMAGES} images (this one has ${count})`);
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/**
 * A tool's JSON Schema of its arguments, which must describe an object (absent: a function without
 * arguments). A schema that names no type is one of an object.
 */
export function argumentsSchema(schema: Record<string, unknown> | null | undefined, param: string): Record<string, unknown> {
  if (schema == null) return { type: 'object', properties: {} };
  if (schema.type === undefined) return { type: 'object', ...schema };
  if (schema.type !== 'object') throw invalid(param, 'must be a JSON Schema of type object');
  return schema;
}

/**
 * The tools a request offers and how the model may use them, checked as the APIs check them: names
 * unique, a named choice one of the tools, and a choice that needs tools (required, a name) only with
 * tools. `params` name the fields (tools, tool_choice) in the refusals.
 */
export function checkTools(tools: ToolSpec[], choice: ToolChoice | undefined, params: { tools: string; choice: string }): void {
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (seen.has(tool.name)) throw invalid(`${params.tools}.${i}`, `the tool name '${tool.name}' is offered twice`);
    seen.add(tool.name);
  });
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  if (tools.length === 0) throw invalid(params.choice, `a tool choice of ${typeof choice === 'string' ? `'${choice}'` : 'a named tool'} needs tools`);
  if (typeof choice === 'object' && !seen.has(choice.name)) throw invalid(params.choice, `there is no tool named '${choice.name}' among the tools`);
}

/** How a dialect names the parts of a tool loop, for the refusals of checkToolTurns. */
export interface ToolLoopTerms {
  /** A tool's answer: "a tool message", "a function_call_output", "a tool_result". */
  result: string;
  /** The model's call: "tool call", "function_call", "tool_use". */
  call: string;
}

/**
 * The tool loop's rules, which every API and platform enforces: the results that follow an assistant
 * turn with tool calls answer exactly those calls, each once, and a result answers a call of the
 * assistant turn right before it. Refused here with the field named, not by the platform as a 502.
 * `paths[i]` names turn i's field: the message of an assistant turn, the call-id field of a result.
 */
export function checkToolTurns(turns: ChatTurn[], paths: string[], terms: ToolLoopTerms): void {
  let open: { path: string; pending: Set<string>; answered: Set<string> } | undefined;
  const close = () => {
    const missing = open ? [...open.pending] : [];
    if (open && missing.length > 0) {
      throw invalid(
        open.path,
        `the ${terms.call} ${missing.map((id) => `'${id}'`).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no ${terms.result.replace(/^an? /, '')} after it; every call needs its result before the conversation goes on`,
      );
    }
    open = undefined;
  };
  turns.forEach((turn, i) => {
    const path = paths[i] ?? '';
    if (turn.role === 'tool') {
      if (!open?.pending.has(turn.toolCallId)) {
        const again = open?.answered.has(turn.toolCallId);
        throw invalid(
          path,
          again
            ? `the ${terms.call} '${turn.toolCallId}' is answered twice`
            : `${terms.result} answers '${turn.toolCallId}', which is not a ${terms.call} of the assistant turn right before it`,
        );
      }
      open.pending.delete(turn.toolCallId);
      open.answered.add(turn.toolCallId);
      return;
    }
    close();
    if (turn.role === 'assistant' && turn.toolCalls?.length) {
      const ids = turn.toolCalls.map((c) => c.id);
      const twice = ids.find((id, k) => ids.indexOf(id) !== k);
      if (twice !== undefined) throw invalid(path, `the ${terms.call} id '${twice}' is used twice`);
      open = { path, pending: new Set(ids), answered: new Set() };
    }
  });
  // A conversation may end with calls not answered yet only if nothing follows them; the model is
  // asked to go on from there, which every platform refuses, so that is refused too.
  close();
}

/** A conversation needs something from the user to answer. */
export function checkHasUserTurn(turns: ChatTurn[], param: string): void {
  if (!turns.some((t) => t.role === 'user')) throw invalid(param, "at least one message must have the role 'user'");
}

/** A model's JSON arguments as an object (Anthropic's tool_use input): anything else becomes {} rather than a broken block. */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A 400 naming a field, worded as the request checks word theirs (lib/http/validation.ts). */
export function invalid(param: string, why: string, code = 'invalid_request'): BadRequest {
  return new BadRequest(`Invalid field '${param}': ${why}`, { code, param });
}

// ---------------------------------------------------------------------------------------------
// Prompt caching and service tiers, the same in every dialect
// ---------------------------------------------------------------------------------------------

/** The TTL a `cache_control` asks for (5 minutes unless it says 1h); undefined without one. */
export const cacheTtl = (control: Checkpoint | null | undefined): CacheTtl | undefined => (control ? (control.ttl ?? '5m') : undefined);

/** `{ cache }` when there is a checkpoint, else nothing (to spread into a part, a turn or a tool). */
export const withCache = (control: Checkpoint | null | undefined) => {
  const ttl = cacheTtl(control);
  return ttl ? { cache: ttl } : {};
};

/** The system prompt from its pieces: one text (joined by `separator`) unless a piece carries a checkpoint. */
export function systemPromptOf(pieces: SystemPart[], separator: string): SystemPrompt | undefined {
  if (pieces.length === 0) return undefined;
  return pieces.some((p) => p.cache) ? pieces : pieces.map((p) => p.text).join(separator);
}

/** Refuses a request with more checkpoints than a model takes, in Anthropic's words (the field: `param`). */
export function checkCheckpoints(request: Pick<ChatRequest, 'system' | 'messages' | 'tools'>, param: string): void {
  const found = cacheCheckpoints(request);
  if (found > MAX_CACHE_CHECKPOINTS) {
    throw invalid(param, `A maximum of ${MAX_CACHE_CHECKPOINTS} blocks with cache_control may be provided. Found ${found}.`);
  }
}

/** OpenAI's service_tier as the canonical tier: `auto` (or none) leaves the choice to the caller's key. */
export const serviceTierOf = (tier: 'auto' | ServiceTier | null | undefined): ServiceTier | undefined =>
  tier === 'auto' || tier == null ? undefined : tier;

/** The tier OpenAI's answers name: the one that served, `default` when the platform's default did. */
export const answeredTier = (settled: Settled): ServiceTier => settled.serviceTier ?? 'default';

/** The prompt tokens a call read from the cache, and all those it sent (plain input, cache reads and writes). */
export function promptTokens(settled: Settled): { cached: number; written: number; prompt: number } {
  const cache = settled.cache;
  const cached = cache?.read ?? 0;
  const written = cache ? cache.write5m + cache.write1h : 0;
  return { cached, written, prompt: settled.tokensIn + cached + written };
}

// ---------------------------------------------------------------------------------------------
// Reasoning
// ---------------------------------------------------------------------------------------------

/**
 * An OpenAI effort as the canonical reasoning request: `none` (or nothing) asks for none; `minimal`
 * is the least a reasoning model on Bedrock takes (low), `xhigh` the most (high).
 */
export function reasoningOfEffort(effort: OpenAiEffort | null | undefined): ReasoningRequest | undefined {
  if (!effort || effort === 'none') return undefined;
  return { effort: effort === 'minimal' ? 'low' : effort === 'xhigh' ? 'high' : effort };
}

/** The text of a reply's readable reasoning (redacted blocks have none), as OpenAI-compatible clients read it. */
export const reasoningText = (reasoning: ReasoningBlock[] | undefined): string =>
  (reasoning ?? []).map((b) => (b.type === 'thinking' ? b.text : '')).join('');

/**
 * The reasoning tokens among an answer's output, estimated from its reasoning (4 bytes a token):
 * Bedrock counts reasoning in the output tokens without saying how many it was.
 */
export const reasoningTokensOf = (reasoning: string): number => Math.ceil(Buffer.byteLength(reasoning, 'utf8') / 4);
