/**
 * OpenAI's Responses API (POST /v1/responses), the stateless part of it, as the canonical model call,
 * and back. It is where the Vercel AI SDK's OpenAI provider sends generateText and streamText by
 * default.
 *
 * Nothing is stored. A response cannot be fetched, continued or referred to later: `store` is accepted
 * (clients send `true`, the API's default) and changes nothing, and the answer says `store: false`;
 * `previous_response_id`, `conversation` and `item_reference` items, which all name something stored
 * earlier, are refused with a 400 that says so and what to send instead: the whole conversation as
 * input items, as the API itself does with `store: false`. (With the Vercel AI SDK that is
 * `providerOptions: { openai: { store: false } }`: with store on, it sends earlier assistant messages as
 * references to their ids.)
 *
 * Read: `input` is a string (one user message) or items: messages (roles user, assistant, system,
 * developer; `input_text`, `input_image` with a base64 `data:` URL, `output_text`, `refusal`),
 * `function_call` items (an assistant message and the calls after it are one assistant turn) and
 * `function_call_output` items (the results). `instructions` and system/developer messages become the
 * system prompt. Function `tools` (the flat shape), `tool_choice`, `parallel_tool_calls`,
 * `text.format` (json_object, json_schema), `max_output_tokens`, `temperature` and `top_p` map onto
 * the canonical request; `metadata`, `user`, `include` and `stream_options` are accepted and change
 * nothing (nothing the service produces is includable).
 *
 * Written: the `response` object with its `output` items (a `message` with `output_text`, then a
 * `function_call` item per call) and `usage`; status `incomplete` with `incomplete_details` when the
 * model hit max_output_tokens or a content filter. Streamed: the Responses events, each numbered
 * (`sequence_number`): response.created, response.in_progress, per item output_item.added, (text)
 * content_part.added, output_text.delta…, output_text.done, content_part.done, (call)
 * function_call_arguments.delta…, function_call_arguments.done, then output_item.done, and last
 * response.completed (or response.incomplete) with the whole response, its usage and the call's
 * `cost_usd`. A failure mid-stream ends it with response.failed, whose `response.error` says why; the
 * Responses API sends no [DONE].
 */
import { usdOf } from '../../core/money';
import type { ChatReply, ChatTurn, ContentPart, FinishReason, OutputFormat, ServiceTier, ToolCall, ToolChoice, ToolSpec } from '../platforms/types';
import {
  StreamedCalls,
  answeredTier,
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
  promptTokens,
  replyFinish,
  serviceTierOf,
  sseEvent,
  streamFailure,
  reasoningOfEffort,
  reasoningText,
  reasoningTokensOf,
  type OpenAiEffort,
} from './common';
import type { CallMeta, MeteredEvent, ParsedChat, Settled } from './types';
import type { FeatureFields } from '../calls/metered';

// ---------------------------------------------------------------------------------------------
// The request, as functions/gateway/schemas.ts lets it through
// ---------------------------------------------------------------------------------------------

type Status = 'in_progress' | 'completed' | 'incomplete';

export interface InputText {
  type: 'input_text';
  text: string;
}

export interface InputImage {
  type: 'input_image';
  image_url?: string | null;
  file_id?: string | null;
  detail?: 'auto' | 'low' | 'high' | 'original' | null;
}

export interface OutputTextPart {
  type: 'output_text';
  text: string;
}

export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}

export interface MessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | (InputText | InputImage | OutputTextPart | RefusalPart)[];
  id?: string;
  status?: Status;
}

export interface FunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: Status;
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | (InputText | InputImage)[];
  id?: string | null;
  status?: Status | null;
}

export interface ItemReference {
  type: 'item_reference';
  id: string;
}

export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | ItemReference;

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export type ResponsesToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean | null };

export interface ResponsesBody {
  model: string;
  reasoning?: { effort?: OpenAiEffort | null; summary?: 'auto' | 'concise' | 'detailed' | null } | null;
  input: string | InputItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  tools?: FunctionTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  text?: { format?: TextFormat };
  stream?: boolean | null;
  previous_response_id?: string | null;
  conversation?: string | { id: string } | null;
  metadata?: Record<string, string> | null;
  user?: string;
  service_tier?: 'auto' | ServiceTier | null;
}

/** The settings a response object repeats back, as the Responses API does. */
export interface ResponseEcho {
  /** The reasoning asked for, as the response echoes it (null: none). */
  reasoning: { effort: OpenAiEffort | null; summary: string | null } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  tools: { type: 'function'; name: string; description: string | null; parameters: Record<string, unknown>; strict: boolean }[];
  tool_choice: ResponsesToolChoice;
  parallel_tool_calls: boolean;
  text: { format: TextFormat };
  metadata: Record<string, string>;
  user?: string;
  /** The tier asked for; the finished response names the one that served. */
  service_tier: 'auto' | ServiceTier;
}

export interface ResponsesCall extends ParsedChat {
  echo: ResponseEcho;
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

const STORES_NOTHING = 'this service stores no responses';

/** A user message's content, or a function's output: text, or its parts in order (`at` names the list). */
function userParts(content: string | (InputText | InputImage | OutputTextPart | RefusalPart)[], at: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part, j) => {
    const where = `${at}.${j}`;
    switch (part.type) {
      case 'input_image':
        return image(part, where);
      case 'refusal':
        return { type: 'text', text: part.refusal };
      default:
        return { type: 'text', text: part.text };
    }
  });
}

function image(part: InputImage, at: string): ContentPart {
  if (part.image_url) return dataUrlImage(part.image_url, `${at}.image_url`);
  if (part.file_id)
    throw invalid(`${at}.file_id`, 'file ids name stored files, and this service stores none: send the image as a data: URL in image_url');
  throw invalid(`${at}.image_url`, 'an input_image needs an image_url (a data: URL)');
}

function textOnly(content: string | (InputText | InputImage | OutputTextPart | RefusalPart)[], at: string, role: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (part.type === 'input_image') throw invalid(`${at}.content.${j}`, `a ${role} message cannot carry images`);
      return part.type === 'refusal' ? part.refusal : part.text;
    })
    .join('');
}

function toolSpecs(tools: FunctionTool[] | undefined): ToolSpec[] {
  return (tools ?? []).map((tool, i) => ({
    name: tool.name,
    ...(tool.description != null && { description: tool.description }),
    parameters: argumentsSchema(tool.parameters, `tools.${i}.parameters`),
    ...(tool.strict != null && { strict: tool.strict }),
  }));
}

function outputFormatOf(format: TextFormat | undefined): OutputFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', name: format.name, schema: format.schema, ...(format.strict != null && { strict: format.strict }) };
}

/** The input items as turns: an assistant message and the function calls right after it are one turn. */
function turnsOf(items: InputItem[], system: string[]): { turns: ChatTurn[]; paths: string[] } {
  const turns: ChatTurn[] = [];
  const paths: string[] = [];
  // The assistant turn that function calls join, while nothing else has come between.
  let assistant: Extract<ChatTurn, { role: 'assistant' }> | undefined;
  items.forEach((item, i) => {
    const at = `input.${i}`;
    switch (item.type) {
      case 'item_reference':
        throw invalid(
          at,
          `item references name stored items, and ${STORES_NOTHING}: send the item itself (with the Vercel AI SDK, set providerOptions.openai.store to false)`,
        );
      case 'function_call':
        if (!assistant) {
          assistant = { role: 'assistant', content: '' };
          turns.push(assistant);
          paths.push(at);
        }
        assistant.toolCalls = [...(assistant.toolCalls ?? []), { id: item.call_id, name: item.name, arguments: item.arguments }];
        return;
      case 'function_call_output':
        assistant = undefined;
        turns.push({ role: 'tool', toolCallId: item.call_id, content: userParts(item.output, `${at}.output`) });
        paths.push(`${at}.call_id`);
        return;
      default:
        assistant = undefined;
        if (item.role === 'system' || item.role === 'developer') {
          system.push(textOnly(item.content, at, item.role));
          return;
        }
        if (item.role === 'assistant') {
          assistant = { role: 'assistant', content: textOnly(item.content, at, 'assistant') };
          turns.push(assistant);
        } else turns.push({ role: 'user', content: userParts(item.content, `${at}.content`) });
        paths.push(at);
    }
  });
  return { turns, paths };
}

export function parse(body: ResponsesBody): ResponsesCall {
  if (body.previous_response_id != null) {
    throw invalid(
      'previous_response_id',
      `${STORES_NOTHING}, so there is no earlier response to continue: send the whole conversation as input items`,
      'previous_response_not_found',
    );
  }
  if (body.conversation != null) {
    throw invalid('conversation', `${STORES_NOTHING} or conversations: send the whole conversation as input items`);
  }
  const system: string[] = body.instructions ? [body.instructions] : [];
  const { turns, paths } =
    typeof body.input === 'string' ? { turns: [{ role: 'user', content: body.input } as ChatTurn], paths: ['input'] } : turnsOf(body.input, system);
  checkHasUserTurn(turns, 'input');
  checkToolTurns(turns, paths, { result: 'a function_call_output', call: 'function_call' });
  checkImageCount(turns, 'input');

  const tools = toolSpecs(body.tools);
  const choice = body.tool_choice;
  const toolChoice: ToolChoice | undefined = choice === undefined || typeof choice === 'string' ? choice : { name: choice.name };
  checkTools(tools, toolChoice, { tools: 'tools', choice: 'tool_choice' });
  const format = body.text?.format;
  const outputFormat = outputFormatOf(format);
  const maxTokens = body.max_output_tokens ?? undefined;
  const serviceTier = serviceTierOf(body.service_tier);
  const reasoning = reasoningOfEffort(body.reasoning?.effort);
  return {
    model: body.model,
    stream: body.stream ?? false,
    request: {
      ...(system.length > 0 && { system: system.join('\n\n') }),
      messages: turns,
      ...(maxTokens !== undefined && { maxTokens }),
      ...(body.temperature != null && { temperature: body.temperature }),
      ...(body.top_p != null && { topP: body.top_p }),
      ...(tools.length > 0 && { tools }),
      ...(tools.length > 0 && toolChoice !== undefined && { toolChoice }),
      ...(tools.length > 0 && body.parallel_tool_calls != null && { parallelToolCalls: body.parallel_tool_calls }),
      ...(outputFormat && { outputFormat }),
      ...(serviceTier && { serviceTier }),
      ...(reasoning && { reasoning }),
    },
    echo: {
      reasoning: reasoning ? { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null } : null,
      service_tier: body.service_tier ?? 'auto',
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      temperature: body.temperature ?? null,
      top_p: body.top_p ?? null,
      tools: tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description ?? null,
        parameters: t.parameters,
        strict: t.strict ?? false,
      })),
      tool_choice: choice ?? 'auto',
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      text: { format: format ?? { type: 'text' } },
      metadata: body.metadata ?? {},
      ...(body.user !== undefined && { user: body.user }),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/** The Responses API's id of a call: `resp_` and the call id. */
export const responseId = (meta: CallMeta) => `resp_${compactId(meta.id)}`;
const messageItemId = (meta: CallMeta, outputIndex: number) => `msg_${compactId(meta.id)}_${outputIndex}`;
const callItemId = (meta: CallMeta, outputIndex: number) => `fc_${compactId(meta.id)}_${outputIndex}`;

type OutputItem = Record<string, unknown>;

const textPart = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

const messageItem = (id: string, text: string, status: Status): OutputItem => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: [textPart(text)],
});

const reasoningItem = (id: string, text: string): OutputItem => ({ id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }] });

const callItem = (id: string, call: ToolCall, status: Status): OutputItem => ({
  id,
  type: 'function_call',
  status,
  call_id: call.id,
  name: call.name,
  arguments: call.arguments,
});

/** How a reply ended, in the Responses API's terms: completed, or incomplete and why. */
function ending(finish: FinishReason): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The Responses API counts the whole prompt as input, the cache reads among it in input_tokens_details. */
const usageOf = (settled: Settled, reasoning = '') => {
  const { cached, prompt } = promptTokens(settled);
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: settled.tokensOut,
    output_tokens_details: { reasoning_tokens: Math.min(settled.tokensOut, reasoningTokensOf(reasoning)) },
    total_tokens: prompt + settled.tokensOut,
  };
};

interface ResponseState {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  output: OutputItem[];
  usage: Record<string, unknown> | null;
  error?: { code: string; message: string };
  incomplete_details?: { reason: string } | null;
  /** The call as settled, once it is: the response then names the tier that served it. */
  settled?: Settled;
}

function responseObject(meta: CallMeta, echo: ResponseEcho, state: ResponseState) {
  return {
    id: responseId(meta),
    object: 'response',
    created_at: meta.created,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: meta.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: null,
    reasoning: echo.reasoning,
    // Nothing is stored, whatever the request asked.
    store: false,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: 'disabled',
    service_tier: state.settled ? answeredTier(state.settled) : echo.service_tier,
    usage: state.usage,
    ...(echo.user !== undefined && { user: echo.user }),
    metadata: echo.metadata,
  };
}

/** The `response` of a reply that is not streamed. */
export function answer(reply: ChatReply, settled: Settled, meta: CallMeta, call: Pick<ResponsesCall, 'echo'>) {
  const { status, incomplete_details } = ending(replyFinish(reply));
  const calls = reply.toolCalls ?? [];
  // A message when there is text, or nothing else to show; the last item ends as the reply did, as streamed.
  const parts: ((status: Status) => OutputItem)[] = [];
  // The model's reasoning first, as a reasoning item (redacted reasoning has no readable text).
  const reasoning = reasoningText(reply.reasoning);
  if (reasoning) parts.push(() => reasoningItem(`rs_${compactId(meta.id)}`, reasoning));
  if (reply.content || calls.length === 0) parts.push((s) => messageItem(messageItemId(meta, 0), reply.content, s));
  for (const c of calls) {
    const index = parts.length;
    parts.push((s) => callItem(callItemId(meta, index), c, s));
  }
  const output = parts.map((item, i) => item(i === parts.length - 1 && status === 'incomplete' ? 'incomplete' : 'completed'));
  return responseObject(meta, call.echo, { status, output, usage: usageOf(settled, reasoning), incomplete_details, settled });
}

/** The Responses API's event stream of a reply. */
export async function* frames(events: AsyncIterable<MeteredEvent>, meta: CallMeta, call: Pick<ResponsesCall, 'echo'>): AsyncGenerator<string> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sseEvent(type, { type, sequence_number: sequence++, ...data });
  const output: OutputItem[] = [];
  const started = responseObject(meta, call.echo, { status: 'in_progress', output: [], usage: null });
  yield event('response.created', { response: started });
  yield event('response.in_progress', { response: started });

  // The item being written: a message (its text so far) or a call; it is done when another begins or the reply ends.
  let open:
    { kind: 'message'; index: number; id: string; text: string } | { kind: 'call'; index: number; id: string; platformIndex: number } | undefined;
  const calls = new StreamedCalls();
  const itemOfCall = new Map<number, { index: number; id: string }>();
  let finish: FinishReason | undefined;
  let settled: Settled | undefined;

  function* startMessage(): Generator<string> {
    const index = output.length;
    const id = messageItemId(meta, index);
    open = { kind: 'message', index, id, text: '' };
    output.push({ id, type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    yield event('response.output_item.added', { output_index: index, item: output[index] });
    yield event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: textPart('') });
  }

  function* close(status: Status): Generator<string> {
    if (open?.kind === 'message') {
      const { index, id, text } = open;
      yield event('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
      yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part: textPart(text) });
      output[index] = messageItem(id, text, status);
      yield event('response.output_item.done', { output_index: index, item: output[index] });
    } else if (open?.kind === 'call') {
      const { index, id, platformIndex } = open;
      const done = calls.get(platformIndex);
      if (done) {
        yield event('response.function_call_arguments.done', { item_id: id, output_index: index, name: done.name, arguments: done.arguments });
        output[index] = callItem(id, done, status);
        yield event('response.output_item.done', { output_index: index, item: output[index] });
      }
    }
    open = undefined;
  }

  for await (const item of guarded(events)) {
    switch (item.kind) {
      case 'text':
        if (!item.text) break;
        if (open?.kind !== 'message') {
          yield* close('completed');
          yield* startMessage();
        }
        if (open?.kind === 'message') {
          open.text += item.text;
          yield event('response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: item.text, logprobs: [] });
        }
        break;
      case 'tool_call': {
        yield* close('completed');
        calls.open(item.index, item.id, item.name);
        const index = output.length;
        const id = callItemId(meta, index);
        open = { kind: 'call', index, id, platformIndex: item.index };
        itemOfCall.set(item.index, { index, id });
        output.push(callItem(id, { id: item.id, name: item.name, arguments: '' }, 'in_progress'));
        yield event('response.output_item.added', { output_index: index, item: output[index] });
        break;
      }
      case 'tool_arguments': {
        const target = itemOfCall.get(item.index);
        if (target && item.text) {
          calls.add(item.index, item.text);
          yield event('response.function_call_arguments.delta', { item_id: target.id, output_index: target.index, delta: item.text });
        }
        break;
      }
      case 'stop':
        finish = item.finishReason;
        break;
      case 'settled':
        settled = item;
        break;
      case 'failed': {
        const failure = streamFailure(item.error, { openAi: true });
        const code = failure.statusCode === 429 ? 'rate_limit_exceeded' : 'server_error';
        yield event('response.failed', {
          response: responseObject(meta, call.echo, { status: 'failed', output, usage: null, error: { code, message: failure.message } }),
        });
        return;
      }
      // `usage` is the platform's count; the settled event says what the call was recorded as.
    }
  }
  const { status, incomplete_details } = ending(finishOf(finish, calls.size > 0));
  // A reply with nothing in it is one empty message, as the answer that is not streamed has.
  if (output.length === 0) yield* startMessage();
  yield* close(status === 'completed' ? 'completed' : 'incomplete');
  const counted = settled ?? { tokensIn: 0, tokensOut: 0, cost: 0 };
  const usage = { ...usageOf(counted), cost_usd: usdOf(counted.cost) };
  yield event(status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: responseObject(meta, call.echo, { status, output, usage, incomplete_details, settled: counted }),
  });
}

/** The fields of the features a model may lack, as the Responses API names them (the refusal's `param`). */
export const fields: FeatureFields = { tools: 'tools', outputFormat: 'text.format', outputSchema: 'text.format.schema', images: 'input' };
