/**
 * OpenAI's chat completions (POST /v1/chat/completions) as the canonical model call, and back.
 *
 * Read: system and developer messages become the system prompt (in order, blank-line separated); user
 * messages keep text and images (`image_url` parts with base64 `data:` URLs only); assistant messages
 * keep their text and `tool_calls`; `tool` messages are the results, each answering one call of the
 * assistant message right before them. `tools` (function tools with a JSON Schema of their arguments
 * and `strict`), `tool_choice`, `parallel_tool_calls` and `response_format` (json_object,
 * json_schema) map onto the canonical request. max_tokens wins over max_completion_tokens; absent,
 * the request names no limit and the caller applies its own.
 *
 * Written: `chat.completion` with `message.tool_calls` (content null when the model only called
 * tools), or `chat.completion.chunk` events as OpenAI streams them: the role first, text deltas, a
 * tool call's first delta with its index, id, type, name and empty arguments and then the arguments
 * in pieces, a last chunk with the finish reason, the usage chunk (stream_options.include_usage, with
 * the call's `cost_usd` beside OpenAI's token counts), and `data: [DONE]`. A failure mid-stream is
 * OpenAI's streaming error (`data: {"error": {...}}`, which its clients raise as an APIError) and no
 * [DONE].
 */
import { usdOf } from '../../core/money';
import { openAiErrorBody } from '../http/middlewares/error-responder';
import type { ChatReply, ChatTurn, ContentPart, OutputFormat, ToolChoice, ToolSpec } from '../platforms/types';
import {
  StreamedCalls,
  argumentsSchema,
  checkHasUserTurn,
  checkImageCount,
  checkToolTurns,
  checkTools,
  compactId,
  dataUrlImage,
  finishOf,
  guarded,
  invalid,
  replyFinish,
  sseData,
  streamFailure,
} from './common';
import type { CallMeta, MeteredEvent, ParsedChat, Settled } from './types';
import type { FeatureFields } from '../calls/metered';

// ---------------------------------------------------------------------------------------------
// The request, as functions/gateway/schemas.ts lets it through
// ---------------------------------------------------------------------------------------------

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImageUrlPart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAiChatMessage =
  | { role: 'system' | 'developer'; content: string | TextPart[]; name?: string }
  | { role: 'user'; content: string | (TextPart | ImageUrlPart)[]; name?: string }
  | { role: 'assistant'; content?: string | (TextPart | RefusalPart)[] | null; tool_calls?: WireToolCall[]; name?: string; refusal?: string | null }
  | { role: 'tool'; tool_call_id: string; content: string | TextPart[]; name?: string };

export interface FunctionToolParam {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type OpenAiToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean | null } };

export interface OpenAiChatBody {
  model: string;
  messages: OpenAiChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[] | null;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  tools?: FunctionToolParam[];
  tool_choice?: OpenAiToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  /** Accepted (the Vercel AI SDK sends it with `store: false`) and changes nothing: no completion is stored. */
  store?: boolean | null;
}

/** A parsed chat completion request: the canonical request, and whether the stream ends with a usage chunk. */
export interface OpenAiChatCall extends ParsedChat {
  includeUsage: boolean;
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

const joined = (content: string | { text: string }[]) => (typeof content === 'string' ? content : content.map((p) => p.text).join(''));

/** A user message's content: its text, or (with images) its parts in order. */
function userContent(content: string | (TextPart | ImageUrlPart)[], at: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (!content.some((p) => p.type === 'image_url')) return joined(content as TextPart[]);
  return content.map((part, j) =>
    part.type === 'text' ? { type: 'text', text: part.text } : dataUrlImage(part.image_url.url, `${at}.content.${j}.image_url.url`),
  );
}

function assistantText(content: string | (TextPart | RefusalPart)[] | null | undefined): string {
  if (content == null) return '';
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : p.refusal)).join('');
}

export function toolSpecs(tools: FunctionToolParam[] | undefined): ToolSpec[] {
  return (tools ?? []).map(({ function: fn }, i) => ({
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    parameters: argumentsSchema(fn.parameters, `tools.${i}.function.parameters`),
    ...(fn.strict != null && { strict: fn.strict }),
  }));
}

function toolChoiceOf(choice: OpenAiToolChoice | undefined): ToolChoice | undefined {
  return choice === undefined || typeof choice === 'string' ? choice : { name: choice.function.name };
}

export function outputFormatOf(format: ResponseFormat | undefined): OutputFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, schema, strict } = format.json_schema;
  return { type: 'json_schema', name, schema, ...(strict != null && { strict }) };
}

export function parse(body: OpenAiChatBody): OpenAiChatCall {
  const system: string[] = [];
  const messages: ChatTurn[] = [];
  // The field each turn came from, for the tool loop's refusals.
  const paths: string[] = [];
  body.messages.forEach((message, i) => {
    const at = `messages.${i}`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(joined(message.content));
        return;
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content, at) });
        paths.push(at);
        return;
      case 'assistant': {
        const toolCalls = (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
        if (message.content == null && toolCalls.length === 0) throw invalid(`${at}.content`, 'an assistant message needs content or tool_calls');
        messages.push({ role: 'assistant', content: assistantText(message.content), ...(toolCalls.length > 0 && { toolCalls }) });
        paths.push(at);
        return;
      }
      case 'tool':
        messages.push({ role: 'tool', toolCallId: message.tool_call_id, content: joined(message.content) });
        paths.push(`${at}.tool_call_id`);
    }
  });
  checkHasUserTurn(messages, 'messages');
  checkToolTurns(messages, paths, { result: 'a tool message', call: 'tool call' });
  checkImageCount(messages, 'messages');

  const tools = toolSpecs(body.tools);
  const toolChoice = toolChoiceOf(body.tool_choice);
  checkTools(tools, toolChoice, { tools: 'tools', choice: 'tool_choice' });
  const stop = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  const outputFormat = outputFormatOf(body.response_format);
  return {
    model: body.model,
    stream: body.stream ?? false,
    includeUsage: body.stream_options?.include_usage ?? false,
    request: {
      ...(system.length > 0 && { system: system.join('\n\n') }),
      messages,
      ...(maxTokens !== undefined && { maxTokens }),
      ...(body.temperature !== undefined && { temperature: body.temperature }),
      ...(body.top_p !== undefined && { topP: body.top_p }),
      ...(stop.length > 0 && { stop }),
      ...(tools.length > 0 && { tools }),
      ...(tools.length > 0 && toolChoice !== undefined && { toolChoice }),
      ...(tools.length > 0 && body.parallel_tool_calls !== undefined && { parallelToolCalls: body.parallel_tool_calls }),
      ...(outputFormat && { outputFormat }),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/** OpenAI's completion id of a call: `chatcmpl-` and the call id (so a client's id finds the call). */
export const completionId = (meta: CallMeta) => `chatcmpl-${compactId(meta.id)}`;

const wireCall = (call: { id: string; name: string; arguments: string }): WireToolCall => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: call.arguments },
});

const usageOf = (settled: Settled) => ({
  prompt_tokens: settled.tokensIn,
  completion_tokens: settled.tokensOut,
  total_tokens: settled.tokensIn + settled.tokensOut,
});

/** The `chat.completion` of a reply that is not streamed. */
export function answer(reply: ChatReply, settled: Settled, meta: CallMeta) {
  const calls = reply.toolCalls ?? [];
  return {
    id: completionId(meta),
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content === '' && calls.length > 0 ? null : reply.content,
          refusal: null,
          ...(calls.length > 0 && { tool_calls: calls.map(wireCall) }),
        },
        logprobs: null,
        finish_reason: replyFinish(reply),
      },
    ],
    usage: usageOf(settled),
    system_fingerprint: null,
  };
}

/** The `chat.completion.chunk` events of a streamed reply, then `data: [DONE]`. */
export async function* frames(
  events: AsyncIterable<MeteredEvent>,
  meta: CallMeta,
  call: Pick<OpenAiChatCall, 'includeUsage'>,
): AsyncGenerator<string> {
  const base = { id: completionId(meta), object: 'chat.completion.chunk', created: meta.created, model: meta.model, system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseData({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  // The role goes with the first delta: an empty text before the first text, or with the first tool call.
  let announced = false;
  const role = { role: 'assistant', content: '', refusal: null };
  const calls = new StreamedCalls();
  let finish: Parameters<typeof finishOf>[0];
  let settled: Settled | undefined;

  for await (const event of guarded(events)) {
    switch (event.kind) {
      case 'text':
        if (!announced) yield chunk(role);
        announced = true;
        if (event.text) yield chunk({ content: event.text });
        break;
      case 'tool_call': {
        const index = calls.open(event.index, event.id, event.name);
        const delta = { tool_calls: [{ index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] };
        yield chunk(announced ? delta : { role: 'assistant', content: null, ...delta });
        announced = true;
        break;
      }
      case 'tool_arguments': {
        const open = calls.add(event.index, event.text);
        if (open && event.text) yield chunk({ tool_calls: [{ index: open.wire, function: { arguments: event.text } }] });
        break;
      }
      case 'stop':
        finish = event.finishReason;
        break;
      case 'settled':
        settled = event;
        break;
      case 'failed': {
        // The platform broke off: the client hears it in OpenAI's streaming error form, and no [DONE].
        const failure = streamFailure(event.error, { openAi: true });
        yield sseData(openAiErrorBody(failure.statusCode, failure.message, undefined, failure));
        return;
      }
      // `usage` is the platform's count; the settled event says what the call was recorded as.
    }
  }
  if (!announced) yield chunk(role);
  yield chunk({}, finishOf(finish, calls.size > 0));
  if (call.includeUsage && settled) yield sseData({ ...base, choices: [], usage: { ...usageOf(settled), cost_usd: usdOf(settled.cost) } });
  yield 'data: [DONE]\n\n';
}

/** OpenAI's error body: `{error: {message, type, code, param}}`. */
export { openAiErrorBody as errorBody };

/** The fields of the features a model may lack, as OpenAI's chat names them (the refusal's `param`). */
export const fields: FeatureFields = {
  tools: 'tools',
  outputFormat: 'response_format',
  outputSchema: 'response_format.json_schema.schema',
  images: 'messages',
};
