/**
 * OpenAI's chat completions wire, which the hosted API and the dedicated containers' Messages API
 * (TGI, LMI) speak: a canonical request as its body, and its answer read back. Tools, tool choice,
 * parallel tool calls and response_format pass through as OpenAI defines them; images go as
 * `image_url` parts with data: URLs, documents as `file` parts (file_data a data: URL, filename).
 *
 * Prompt-cache checkpoints go through only where the server is asked to take them (`cacheControl`:
 * the hosted API, an OpenAI-compatible proxy that may sit in front of a caching model): as
 * `cache_control` on the part, the system part, the tool or the message they follow, the way LiteLLM
 * and OpenRouter take them. TGI and LMI know no such field, so the containers never get one.
 *
 * Read leniently, because OpenAI-compatible servers differ in small ways: TGI before 3.0 answers a
 * tool call's `arguments` as a JSON object instead of text and numbers its ids.
 */
import { systemText, type CacheTtl, type ChatRequest, type ChatTurn, type ContentPart, type FinishReason, type ToolCall } from './types';

/** How the body is written: whether cache checkpoints go along as `cache_control`. */
interface WireOptions {
  cacheControl?: boolean;
}

const dataUrl = (part: Extract<ContentPart, { type: 'image' }>) => `data:${part.mediaType};base64,${part.data}`;

/** A content part as OpenAI writes it: text, an image_url (a data: URL), or a file (a document's data: URL and name). */
const wirePart = (p: ContentPart) =>
  p.type === 'text'
    ? { type: 'text', text: p.text }
    : p.type === 'image'
      ? { type: 'image_url', image_url: { url: dataUrl(p) } }
      : { type: 'file', file: { filename: p.name, file_data: `data:${p.format === 'pdf' ? 'application/pdf' : 'text/plain'};base64,${p.data}` } };

/** `cache_control` of a checkpoint, when the server takes them and there is one. */
const cacheControl = (ttl: CacheTtl | undefined, options: WireOptions) =>
  options.cacheControl && ttl ? { cache_control: { type: 'ephemeral', ...(ttl === '1h' && { ttl }) } } : {};

function partsOf(content: string | ContentPart[], options: WireOptions): unknown {
  if (typeof content === 'string') return content;
  // Text alone stays a string: some servers take nothing else (unless a checkpoint must ride on a part).
  const checkpoints = options.cacheControl && content.some((p) => p.cache);
  if (!checkpoints && content.every((p) => p.type === 'text')) return content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  return content.map((p) => ({
    ...wirePart(p),
    ...cacheControl(p.cache, options),
  }));
}

function message(turn: ChatTurn, options: WireOptions): Record<string, unknown> {
  switch (turn.role) {
    case 'user':
      return { role: 'user', content: partsOf(turn.content, options) };
    case 'assistant':
      return {
        role: 'assistant',
        content: turn.content || (turn.toolCalls?.length ? null : ''),
        ...(turn.toolCalls?.length
          ? { tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
          : {}),
        ...cacheControl(turn.cache, options),
      };
    case 'tool': {
      // A tool message carries text only, and OpenAI has no failure flag: a failure says so in words.
      const text = typeof turn.content === 'string' ? turn.content : turn.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('');
      return { role: 'tool', tool_call_id: turn.toolCallId, content: turn.isError ? `Error: ${text}` : text, ...cacheControl(turn.cache, options) };
    }
  }
}

/** The system prompt (when not blank) and the conversation as OpenAI messages. */
export function openAiMessages(request: ChatRequest, options: WireOptions = {}): Record<string, unknown>[] {
  const { system } = request;
  const systemContent = system === undefined || typeof system === 'string' || !options.cacheControl ? systemText(system) : partsOf(system, options);
  return [...(systemText(system).trim() ? [{ role: 'system', content: systemContent }] : []), ...request.messages.map((m) => message(m, options))];
}

/** A request's limits and sampling in the OpenAI wire names. */
function openAiSampling(request: ChatRequest): Record<string, unknown> {
  const fields = { max_tokens: request.maxTokens, temperature: request.temperature, top_p: request.topP, stop: request.stop };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** The chat completions body of a request (without model and streaming, which the platform adds). */
export function openAiChatBody(request: ChatRequest, options: WireOptions = {}): Record<string, unknown> {
  return { messages: openAiMessages(request, options), ...openAiSampling(request), ...openAiToolFields(request, options) };
}

/** Tools, tool choice, parallel calls and the output format, in OpenAI's names; only those the request sets. */
export function openAiToolFields(request: ChatRequest, options: WireOptions = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (request.tools?.length) {
    fields.tools = request.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters,
        ...(t.strict ? { strict: true } : {}),
      },
      ...cacheControl(t.cache, options),
    }));
    if (request.parallelToolCalls !== undefined) fields.parallel_tool_calls = request.parallelToolCalls;
  }
  const choice = request.toolChoice;
  if (choice !== undefined && request.tools?.length)
    fields.tool_choice = typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
  const format = request.outputFormat;
  if (format?.type === 'json_object') fields.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    fields.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) },
    };
  }
  return fields;
}

/** OpenAI's finish_reason in the canonical words (TGI's eos_token is a stop). */
export function openAiFinish(reason: unknown): FinishReason {
  return reason === 'length' || reason === 'tool_calls' || reason === 'content_filter' ? reason : 'stop';
}

/** A tool call's arguments as JSON text, whether the server sent text or (TGI) an object. */
export const argumentsText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? {}));

interface WireToolCall {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

export interface OpenAiAnswer {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  model?: string;
}

/** A chat.completion's first choice; undefined when the body is not one (neither text nor tool calls). */
export function readOpenAiCompletion(body: unknown): OpenAiAnswer | undefined {
  const completion = body as {
    model?: unknown;
    choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  } | null;
  const choice = completion?.choices?.[0];
  const content = choice?.message?.content;
  const wireCalls = choice?.message?.tool_calls;
  const calls = Array.isArray(wireCalls)
    ? (wireCalls as WireToolCall[])
    : wireCalls && typeof wireCalls === 'object'
      ? [wireCalls as WireToolCall]
      : [];
  if (typeof content !== 'string' && calls.length === 0) return undefined;
  const toolCalls = calls.map((c, i) => ({
    id: typeof c.id === 'string' || typeof c.id === 'number' ? String(c.id) : `call_${i}`,
    name: typeof c.function?.name === 'string' ? c.function.name : '',
    arguments: argumentsText(c.function?.arguments),
  }));
  return {
    content: typeof content === 'string' ? content : '',
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : openAiFinish(choice?.finish_reason),
    usage: completion?.usage,
    model: typeof completion?.model === 'string' ? completion.model : undefined,
  };
}
