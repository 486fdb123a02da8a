/**
 * OpenAI's chat completions (POST /v1/chat/completions) as the canonical model call, and back.
 *
 * Read: system and developer messages become the system prompt (in order, blank-line separated); user
 * messages keep text, images (`image_url` parts with base64 `data:` URLs only) and documents (`file`
 * parts: file_data a base64 `data:` URL of a PDF or text, named by filename); assistant messages
 * keep their text and `tool_calls`; `tool` messages are the results, each answering one call of the
 * assistant message right before them. `tools` (function tools with a JSON Schema of their arguments
 * and `strict`), `tool_choice`, `parallel_tool_calls` and `response_format` (json_object,
 * json_schema) map onto the canonical request. max_tokens wins over max_completion_tokens; absent,
 * the request names no limit and the caller applies its own. `cache_control` on a content part (of any
 * message) or a tool is a prompt-cache checkpoint after it, as LiteLLM takes it; `service_tier` (auto,
 * default, flex, priority) asks for a processing tier, and the answer names the one that served it.
 * `usage.prompt_tokens` counts the whole prompt, cached tokens included, with the cache reads in
 * `prompt_tokens_details.cached_tokens`, as OpenAI counts them.
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
import type { ChatReply, ChatTurn, ContentPart, OutputFormat, SystemPart, SystemPrompt, ToolChoice, ToolSpec } from '../platforms/types';
import {
  StreamedCalls,
  answeredTier,
  argumentsSchema,
  checkCheckpoints,
  checkHasUserTurn,
  checkImageCount,
  checkToolTurns,
  checkTools,
  compactId,
  dataUrlImage,
  finishOf,
  guarded,
  invalid,
  promptTokens,
  replyFinish,
  serviceTierOf,
  sseData,
  streamFailure,
  systemPromptOf,
  withCache,
  reasoningOfEffort,
  reasoningText,
  reasoningTokensOf,
} from './common';
import { checkDocuments, fileDocument } from './documents';
import type {
  FilePart,
  FunctionToolParam,
  ImageUrlPart,
  OpenAiChatBody,
  OpenAiToolChoice,
  RefusalPart,
  ResponseFormat,
  TextPart,
  WireToolCall,
} from './schemas/openai-chat';
import type { Checkpoint } from './schemas/shared';
import type { CallMeta, MeteredEvent, ParsedChat, Settled } from './types';
import type { FeatureFields } from '../calls/metered';

// ---------------------------------------------------------------------------------------------
// The request, as its schema (./schemas/openai-chat.ts) lets it through
// ---------------------------------------------------------------------------------------------

export type { OpenAiChatBody };

/** A parsed chat completion request: the canonical request, and whether the stream ends with a usage chunk. */
export interface OpenAiChatCall extends ParsedChat {
  includeUsage: boolean;
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

const joined = (content: string | { text: string }[]) => (typeof content === 'string' ? content : content.map((p) => p.text).join(''));

const hasCheckpoint = (content: string | { cache_control?: Checkpoint | null }[]) =>
  typeof content !== 'string' && content.some((p) => p.cache_control);

/** A user (or tool) message's content: its text, or (with images or checkpoints) its parts in order. */
function userContent(content: string | (TextPart | ImageUrlPart | FilePart)[], at: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (content.every((p) => p.type === 'text') && !hasCheckpoint(content)) return joined(content);
  return content.map((part, j) =>
    part.type === 'file'
      ? fileDocument(part.file, `${at}.content.${j}.file`)
      : {
          ...(part.type === 'text'
            ? { type: 'text' as const, text: part.text }
            : dataUrlImage(part.image_url.url, `${at}.content.${j}.image_url.url`)),
          ...withCache(part.cache_control),
        },
  );
}

/** A system message's pieces: one text, or its parts where one carries a checkpoint. */
const systemPieces = (content: string | TextPart[]): SystemPart[] =>
  hasCheckpoint(content) && typeof content !== 'string'
    ? content.map((p) => ({ type: 'text', text: p.text, ...withCache(p.cache_control) }))
    : [{ type: 'text', text: joined(content) }];

/** The checkpoint on an assistant message's parts, which become one turn: after that turn. */
const assistantCache = (content: string | (TextPart | RefusalPart)[] | null | undefined) =>
  withCache(Array.isArray(content) ? content.map((p) => (p.type === 'text' ? p.cache_control : undefined)).findLast(Boolean) : undefined);

function assistantText(content: string | (TextPart | RefusalPart)[] | null | undefined): string {
  if (content == null) return '';
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : p.refusal)).join('');
}

export function toolSpecs(tools: FunctionToolParam[] | undefined): ToolSpec[] {
  return (tools ?? []).map(({ function: fn, cache_control }, i) => ({
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    parameters: argumentsSchema(fn.parameters, `tools.${i}.function.parameters`),
    ...(fn.strict != null && { strict: fn.strict }),
    ...withCache(cache_control),
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
  // Pieces of one message join with nothing between them, messages with a blank line.
  const system: SystemPart[][] = [];
  const messages: ChatTurn[] = [];
  // The field each turn came from, for the tool loop's refusals.
  const paths: string[] = [];
  body.messages.forEach((message, i) => {
    const at = `messages.${i}`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(systemPieces(message.content));
        return;
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content, at) });
        paths.push(at);
        return;
      case 'assistant': {
        const toolCalls = (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
        if (message.content == null && toolCalls.length === 0) throw invalid(`${at}.content`, 'an assistant message needs content or tool_calls');
        messages.push({
          role: 'assistant',
          content: assistantText(message.content),
          ...(toolCalls.length > 0 && { toolCalls }),
          ...assistantCache(message.content),
        });
        paths.push(at);
        return;
      }
      case 'tool':
        messages.push({ role: 'tool', toolCallId: message.tool_call_id, content: userContent(message.content, at) });
        paths.push(`${at}.tool_call_id`);
    }
  });
  checkHasUserTurn(messages, 'messages');
  checkToolTurns(messages, paths, { result: 'a tool message', call: 'tool call' });
  checkImageCount(messages, 'messages');
  checkDocuments(messages, 'messages');

  const tools = toolSpecs(body.tools);
  const toolChoice = toolChoiceOf(body.tool_choice);
  checkTools(tools, toolChoice, { tools: 'tools', choice: 'tool_choice' });
  const stop = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  const outputFormat = outputFormatOf(body.response_format);
  const systemPrompt = systemOf(system);
  checkCheckpoints({ system: systemPrompt, messages, tools }, 'messages');
  const reasoning = reasoningOfEffort(body.reasoning_effort);
  const serviceTier = serviceTierOf(body.service_tier);
  return {
    model: body.model,
    stream: body.stream ?? false,
    includeUsage: body.stream_options?.include_usage ?? false,
    request: {
      ...(systemPrompt !== undefined && { system: systemPrompt }),
      messages,
      ...(maxTokens !== undefined && { maxTokens }),
      ...(body.temperature !== undefined && { temperature: body.temperature }),
      ...(body.top_p !== undefined && { topP: body.top_p }),
      ...(stop.length > 0 && { stop }),
      ...(tools.length > 0 && { tools }),
      ...(tools.length > 0 && toolChoice !== undefined && { toolChoice }),
      ...(tools.length > 0 && body.parallel_tool_calls !== undefined && { parallelToolCalls: body.parallel_tool_calls }),
      ...(outputFormat && { outputFormat }),
      ...(serviceTier && { serviceTier }),
      ...(reasoning && { reasoning }),
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

/** The system messages' pieces as one prompt: messages a blank line apart, a message's own pieces side by side. */
function systemOf(messages: SystemPart[][]): SystemPrompt | undefined {
  if (!messages.some((pieces) => pieces.some((p) => p.cache))) return systemPromptOf(messages.flat(), '\n\n');
  // With checkpoints, the blank line between messages goes at the start of each later message's first piece.
  return messages.flatMap((pieces, i) => pieces.map((p, j) => (i > 0 && j === 0 ? { ...p, text: `\n\n${p.text}` } : p)));
}

/** The usage of a call: reasoning tokens (estimated from the reasoning) are among the completion tokens, priced as output. */
const usageOf = (settled: Settled, reasoning: string) => {
  const { cached, prompt } = promptTokens(settled);
  return {
    prompt_tokens: prompt,
    completion_tokens: settled.tokensOut,
    total_tokens: prompt + settled.tokensOut,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: Math.min(settled.tokensOut, reasoningTokensOf(reasoning)) },
  };
};

/** The `chat.completion` of a reply that is not streamed. */
export function answer(reply: ChatReply, settled: Settled, meta: CallMeta) {
  const calls = reply.toolCalls ?? [];
  const reasoning = reasoningText(reply.reasoning);
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
          ...(reasoning && { reasoning_content: reasoning }),
          ...(calls.length > 0 && { tool_calls: calls.map(wireCall) }),
        },
        logprobs: null,
        finish_reason: replyFinish(reply),
      },
    ],
    usage: usageOf(settled, reasoning),
    service_tier: answeredTier(settled),
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
  let reasoning = '';

  for await (const event of guarded(events)) {
    switch (event.kind) {
      case 'reasoning':
        // Before the answer, as DeepSeek's API and the OpenAI-compatible servers stream it.
        if (!event.text) break;
        yield chunk(announced ? { reasoning_content: event.text } : { role: 'assistant', content: '', reasoning_content: event.text });
        announced = true;
        reasoning += event.text;
        break;
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
  if (call.includeUsage && settled) {
    yield sseData({
      ...base,
      choices: [],
      usage: { ...usageOf(settled, reasoning), cost_usd: usdOf(settled.cost) },
      service_tier: answeredTier(settled),
    });
  }
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
  documents: 'messages',
  reasoning: 'reasoning_effort',
};
