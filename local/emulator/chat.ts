/**
 * The one deterministic "model" behind Converse, InvokeEndpoint and the hosted chat completions.
 * Its reply quotes back what arrived, so a test can prove which context the platform code sent.
 *
 * Beyond text it behaves the same way on every platform, so that a tool loop runs offline:
 * - offered tools (and a tool choice other than none) and a user message last: it calls the forced
 *   tool, or the first one, or every tool when the user asks for "all tools" (unless parallel calls
 *   are off), with arguments made from each tool's JSON Schema; an unforced call is preceded by a
 *   short text, as chat models tend to do;
 * - tool results last: it answers in text that quotes each result;
 * - an answer asked for as JSON (a schema, or any object): a document made from the schema;
 * - images: counted and acknowledged ("2 images received").
 * - documents: counted and acknowledged ("1 document received (1500 tokens)").
 */
import { createHash } from 'node:crypto';
import { sleep, type EmulatorError, type ResolvedOptions } from './shared';

export interface ToolResultIn {
  id: string;
  /** The tool's name where the wire carries it (OpenAI's tool messages do not). */
  name?: string;
  text: string;
  isError?: boolean;
}

export interface ChatTurn {
  role: string;
  text: string;
  images?: number;
  toolResults?: ToolResultIn[];
}

interface ToolIn {
  name: string;
  schema: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  system: string[];
  /** The conversation without system messages. */
  turns: ChatTurn[];
  /** The documents the request carried, and the input tokens they count for (documents.ts). */
  documents?: { count: number; tokens: number };
  maxTokens?: number;
  tools?: ToolIn[];
  /** `any`: some tool must be called; a name: that tool. */
  toolChoice?: 'auto' | 'any' | 'none' | { name: string };
  /** false: at most one tool call (OpenAI's parallel_tool_calls). */
  parallelToolCalls?: boolean;
  /** The answer as JSON: a document of this schema ('object': any object). */
  json?: Record<string, unknown> | 'object';
}

interface ToolCallOut {
  id: string;
  name: string;
  input: unknown;
}

export interface ChatResult {
  text: string;
  toolCalls: ToolCallOut[];
  inputTokens: number;
  outputTokens: number;
  /** 'length' when maxTokens cut the reply short; 'tool_use' when it calls tools. */
  stop: 'end' | 'length' | 'tool_use';
}

/** A wire value as text: strings as they are, anything else (absent, a number, an object) as ''. */
export const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

const CHARS_PER_TOKEN = 4;
/** What an image counts for among the input tokens (a fixed figure: the emulator does not look at pixels). */
const IMAGE_TOKENS = 85;

export function tokensFor(chars: number): number {
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}

/**
 * A last user message that starts with "echo:" is answered with the rest of it, verbatim: how a person
 * or a test makes the emulated model answer a given text (Markdown as real models write it, or
 * something hostile for the console to neutralise).
 */
const ECHO = /^echo:[ \t]?/i;

/**
 * A last user message that asks for an answer "at length" is answered as a real model answers a
 * request for a long text when nothing stops it: it writes until the call's maxTokens, or without one
 * until its own maximum (this figure), so a call that sends no bound costs what a model's maximum
 * costs (the budget tests' worst case).
 */
const AT_LENGTH = /\bat length\b/i;
export const EMULATED_MAX_OUTPUT_TOKENS = 4_096;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function emulateChat(req: ChatRequest): ChatResult {
  const last = req.turns.at(-1);
  const userTexts = req.turns.filter((t) => t.role === 'user' && t.text).map((t) => t.text);
  const lastUserText = userTexts.at(-1) ?? '';
  const images = req.turns.reduce((n, t) => n + (t.images ?? 0), 0);
  const inputChars =
    [...req.system, ...req.turns.map((t) => t.text), ...req.turns.flatMap((t) => (t.toolResults ?? []).map((r) => r.text))].reduce(
      (n, s) => n + s.length,
      0,
    ) + (req.tools ? JSON.stringify(req.tools).length : 0);
  const inputTokens = tokensFor(inputChars) + images * IMAGE_TOKENS + (req.documents?.tokens ?? 0);

  const choice = req.toolChoice ?? 'auto';
  const results = last?.toolResults ?? [];
  let text: string;
  let toolCalls: ToolCallOut[] = [];
  if (results.length > 0) {
    text =
      `Emulated reply from ${req.model}. Tool results: ` +
      results.map((r) => `${r.name ?? r.id}${r.isError ? ' failed' : ''}: ${r.text}`).join(' | ') +
      '.';
  } else if (req.tools?.length && choice !== 'none' && last?.role === 'user') {
    const forced = typeof choice === 'object' ? req.tools.filter((t) => t.name === choice.name) : [];
    const everyTool = /\ball tools\b/i.test(last.text) && req.parallelToolCalls !== false;
    const called = forced.length > 0 ? forced : everyTool ? req.tools : req.tools.slice(0, 1);
    toolCalls = called.map((tool, i) => ({
      id: callId(`${req.turns.length}|${lastUserText}|${tool.name}|${i}`),
      name: tool.name,
      input: exampleOf(tool.schema, lastUserText),
    }));
    // A model that chose to call a tool usually says so first; a forced call has no text.
    text = choice === 'auto' ? `Calling ${called.map((t) => t.name).join(' and ')}.` : '';
  } else if (req.json) {
    text = JSON.stringify(exampleOf(req.json === 'object' ? { type: 'object', properties: { answer: { type: 'string' } } } : req.json, lastUserText));
  } else if (ECHO.test(lastUserText)) {
    text = lastUserText.replace(ECHO, '');
  } else if (AT_LENGTH.test(lastUserText)) {
    const sentence = `Emulated reply from ${req.model}, written at length. `;
    text = sentence
      .repeat(Math.ceil((EMULATED_MAX_OUTPUT_TOKENS * CHARS_PER_TOKEN) / sentence.length))
      .slice(0, EMULATED_MAX_OUTPUT_TOKENS * CHARS_PER_TOKEN);
  } else {
    const earlier = userTexts.slice(0, -1);
    text =
      `Emulated reply from ${req.model}. You said: "${lastUserText}". ` +
      `Context: ${req.turns.length} messages received; earlier user messages: [${earlier.join(' | ')}]; ` +
      `system: ${req.system.length > 0 ? 'yes' : 'no'}.` +
      (images > 0 ? ` ${plural(images, 'image')} received.` : '') +
      (req.documents ? ` ${plural(req.documents.count, 'document')} received (${req.documents.tokens} tokens).` : '');
  }

  let stop: ChatResult['stop'] = toolCalls.length > 0 ? 'tool_use' : 'end';
  if (toolCalls.length === 0 && req.maxTokens !== undefined && tokensFor(text.length) > req.maxTokens) {
    text = text.slice(0, req.maxTokens * CHARS_PER_TOKEN);
    stop = 'length';
  }
  const outputChars = text.length + toolCalls.reduce((n, c) => n + c.name.length + JSON.stringify(c.input).length, 0);
  return { text, toolCalls, inputTokens, outputTokens: tokensFor(outputChars), stop };
}

/** A tool call id the way the services make them: a prefix and random-looking characters (here a hash). */
function callId(seed: string): string {
  return createHash('sha256').update(seed).digest('base64url').slice(0, 22);
}

/**
 * A value of a JSON Schema: the constant, the first enum value, the first alternative, and for a
 * string the user's words (so a call's arguments show what it was asked). Enough of JSON Schema for
 * the schemas tools and structured output use.
 */
function exampleOf(schema: unknown, hint: string): unknown {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0)
      return exampleOf(options.find((o) => (o as { type?: unknown })?.type !== 'null') ?? options[0], hint);
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'object':
    case undefined: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      if (type === undefined && !s.properties) return hint || 'example';
      return Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, exampleOf(sub, hint)]));
    }
    case 'array': {
      const count = Math.max(1, Number(s.minItems ?? 1));
      return Array.from({ length: count }, () => exampleOf(s.items, hint));
    }
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
      const value = typeof s.maximum === 'number' ? Math.min(min, s.maximum) : min;
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      const formats: Record<string, string> = {
        'date-time': '2024-01-01T00:00:00Z',
        date: '2024-01-01',
        time: '00:00:00Z',
        email: 'user@example.com',
        uri: 'https://example.com/',
        uuid: '00000000-0000-4000-8000-000000000000',
      };
      let value = (typeof s.format === 'string' && formats[s.format]) || hint.slice(0, 60) || 'example';
      if (typeof s.minLength === 'number' && value.length < s.minLength) value = value.padEnd(s.minLength, 'x');
      if (typeof s.maxLength === 'number') value = value.slice(0, s.maxLength);
      return value;
    }
  }
}

/** Waits out the configured model latency and reports it, as the services' latency fields do. */
export async function modelLatency(opts: ResolvedOptions): Promise<number> {
  const started = Date.now();
  await sleep(opts.responseDelayMs);
  return opts.responseDelayMs > 0 ? opts.responseDelayMs : Date.now() - started;
}

// ---------------------------------------------------------------- images

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])),
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8,
  gif: (b) => b.subarray(0, 3).toString('latin1') === 'GIF',
  webp: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** Whether the bytes are an image of the format named (its magic number), as the services check. */
export function isImage(format: string, bytes: Buffer): boolean {
  return bytes.length > 0 && (MAGIC[format]?.(bytes) ?? false);
}

// ---------------------------------------------------------------- embeddings

/**
 * A deterministic embedding: `dimensions` numbers drawn from a hash of the text, of unit length when
 * `normalize` (equal texts get equal vectors, different texts different ones).
 */
export function embeddingOf(text: string, dimensions: number, normalize = true): number[] {
  const values: number[] = [];
  let block = 0;
  while (values.length < dimensions) {
    const digest = createHash('sha256').update(`${block++}|${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && values.length < dimensions; i += 4) values.push(digest.readUInt32BE(i) / 0xffffffff - 0.5);
  }
  const norm = Math.sqrt(values.reduce((n, v) => n + v * v, 0)) || 1;
  return values.map((v) => Math.round((normalize ? v / norm : v) * 1e6) / 1e6);
}

// ---------------------------------------------------------------- OpenAI's wire (hosted API, dedicated containers)

interface OpenAiMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

export interface OpenAiChatBody {
  model?: unknown;
  messages?: OpenAiMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown;
  tool_choice?: unknown;
  parallel_tool_calls?: unknown;
  response_format?: unknown;
}

/** Text of an OpenAI-style message content: a string or an array of typed parts. */
function openAiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && typeof part.text === 'string' ? part.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

const DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/=\s]+)$/;

/** The images of an OpenAI content array (`image_url` parts), each checked to be what it says. */
function openAiImages(content: unknown, invalid: (message: string) => EmulatorError): number {
  if (!Array.isArray(content)) return 0;
  let count = 0;
  for (const part of content as { type?: unknown; image_url?: { url?: unknown } }[]) {
    if (part?.type !== 'image_url') continue;
    const url = typeof part.image_url?.url === 'string' ? part.image_url.url : '';
    const match = DATA_URL.exec(url);
    if (!match) throw invalid('image_url must be a data: URL of a png, jpeg, gif or webp image (base64)');
    if (!isImage(match[1] as string, Buffer.from(match[2] as string, 'base64'))) throw invalid(`The image is not a valid ${match[1]} image`);
    count++;
  }
  return count;
}

/**
 * An OpenAI chat completions body as the emulated model's input, checked as an OpenAI-compatible server
 * checks it: tool messages answer a preceding assistant's tool_calls, images are data: URLs, and only a
 * model that reads images gets them. `invalid` makes the service's own validation error.
 */
export function fromOpenAiBody(
  body: OpenAiChatBody,
  model: { id: string; vision: boolean },
  invalid: (message: string) => EmulatorError,
): ChatRequest {
  const system: string[] = [];
  const turns: ChatTurn[] = [];
  const names = new Map<string, string>();
  let openCalls = new Set<string>();
  for (const m of body.messages ?? []) {
    const role = typeof m.role === 'string' ? m.role : '';
    const text = openAiText(m.content);
    if (role === 'system' || role === 'developer') {
      system.push(text);
      continue;
    }
    if (role === 'tool') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : '';
      if (!openCalls.has(id)) {
        throw invalid("Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.");
      }
      const result = { id, name: names.get(id), text };
      const previous = turns.at(-1);
      if (previous?.role === 'tool') previous.toolResults?.push(result);
      else turns.push({ role: 'tool', text: '', toolResults: [result] });
      continue;
    }
    openCalls = new Set();
    if (role === 'assistant' && Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls as { id?: unknown; function?: { name?: unknown } }[]) {
        if (typeof call?.id !== 'string') continue;
        openCalls.add(call.id);
        if (typeof call.function?.name === 'string') names.set(call.id, call.function.name);
      }
    }
    const images = role === 'user' ? openAiImages(m.content, invalid) : 0;
    if (images > 0 && !model.vision) throw invalid(`Model ${model.id} does not support image input`);
    turns.push({ role, text, images });
  }

  const tools = Array.isArray(body.tools)
    ? (body.tools as { type?: unknown; function?: { name?: unknown; parameters?: unknown } }[]).map((t) => {
        if (t?.type !== 'function' || typeof t.function?.name !== 'string')
          throw invalid('Each tool must be {"type": "function", "function": {"name", …}}');
        return { name: t.function.name, schema: (t.function.parameters ?? { type: 'object', properties: {} }) as Record<string, unknown> };
      })
    : undefined;
  const choice = body.tool_choice as { type?: unknown; function?: { name?: unknown } } | string | undefined;
  let toolChoice: ChatRequest['toolChoice'];
  if (choice === 'none' || choice === 'auto') toolChoice = choice;
  else if (choice === 'required') toolChoice = 'any';
  else if (choice && typeof choice === 'object' && typeof choice.function?.name === 'string') {
    if (!tools?.some((t) => t.name === choice.function?.name))
      throw invalid(`tool_choice names "${choice.function.name}", which is not among the tools`);
    toolChoice = { name: choice.function.name };
  } else if (choice !== undefined) throw invalid('tool_choice must be "none", "auto", "required" or a named function');

  const format = body.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  let json: ChatRequest['json'];
  if (format?.type === 'json_object') json = 'object';
  else if (format?.type === 'json_schema') {
    if (!format.json_schema || typeof format.json_schema.schema !== 'object') throw invalid('response_format json_schema needs json_schema.schema');
    json = format.json_schema.schema as Record<string, unknown>;
  } else if (format !== undefined && format?.type !== 'text') throw invalid('response_format.type must be text, json_object or json_schema');

  return {
    model: model.id,
    system,
    turns,
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    tools,
    toolChoice,
    parallelToolCalls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : undefined,
    json,
  };
}

const finishReason = (result: ChatResult) => (result.stop === 'length' ? 'length' : result.stop === 'tool_use' ? 'tool_calls' : 'stop');

const openAiToolCalls = (result: ChatResult) =>
  result.toolCalls.map((c) => ({ id: `call_${c.id}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));

/** The OpenAI chat.completion object both InvokeEndpoint and the hosted API answer with. */
export function openAiCompletion(id: string, model: string, result: ChatResult, created: number) {
  const toolCalls = openAiToolCalls(result);
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: result.text || (toolCalls.length > 0 ? null : ''),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(result),
      },
    ],
    usage: {
      prompt_tokens: result.inputTokens,
      completion_tokens: result.outputTokens,
      total_tokens: result.inputTokens + result.outputTokens,
    },
  };
}

/** A JSON text in about three pieces, cut anywhere, as arguments stream. */
export function piecesOf(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces.length > 0 ? pieces : [''];
}

/**
 * The same completion as OpenAI's server-sent events (what the hosted API and TGI's Messages API send
 * for `stream: true`): a role chunk, one chunk per word, each tool call opened (id, name) and its
 * arguments in pieces, the finish reason, the usage chunk when asked for, then [DONE]. One event per
 * element.
 */
export function openAiChunks(id: string, model: string, result: ChatResult, created: number, includeUsage: boolean): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  const words = result.text ? (result.text.match(/\S+\s*/g) ?? [result.text]) : [];
  const usage = { prompt_tokens: result.inputTokens, completion_tokens: result.outputTokens, total_tokens: result.inputTokens + result.outputTokens };
  const calls = openAiToolCalls(result).flatMap((call, index) => [
    delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null),
    ...piecesOf(call.function.arguments).map((piece) => delta({ tool_calls: [{ index, function: { arguments: piece } }] }, null)),
  ]);
  return [
    delta({ role: 'assistant', content: '' }, null),
    ...words.map((w) => delta({ content: w }, null)),
    ...calls,
    delta({}, finishReason(result)),
    ...(includeUsage ? [chunk([], { usage })] : []),
    'data: [DONE]\n\n',
  ];
}

/** The error event an OpenAI-compatible server sends when generation fails after the stream began. */
export function openAiStreamError(message: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'server_error', code: 'internal_error', param: null } })}\n\n`;
}
