/** The Responses API's request as the canonical model call (lib/dialects/openai-responses.ts says what is read and how). */
import type { ChatTurn, ContentPart, OutputFormat, ToolChoice, ToolSpec } from '../platforms/types';
import {
  argumentsSchema,
  checkHasUserTurn,
  checkImageCount,
  checkToolTurns,
  checkTools,
  dataUrlImage,
  invalid,
  reasoningOfEffort,
  serviceTierOf,
} from './common';
import type {
  FunctionTool,
  InputImage,
  InputItem,
  InputText,
  OutputTextPart,
  RefusalPart,
  ResponsesBody,
  ResponsesToolChoice,
  Status,
  TextFormat,
} from './schemas/openai-responses';
import type { OpenAiEffort } from './schemas/shared';
import type { ParsedChat } from './types';

// ---------------------------------------------------------------------------------------------
// The request, as its schema (./schemas/openai-responses.ts) lets it through
// ---------------------------------------------------------------------------------------------

export type { ResponsesBody, Status };

/** A message's parts: what a user message and a function's output may carry, and an earlier answer's. */
type MessagePart = InputText | InputImage | OutputTextPart | RefusalPart;

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
  metadata: NonNullable<ResponsesBody['metadata']>;
  user?: string;
  /** The tier asked for; the finished response names the one that served. */
  service_tier: NonNullable<ResponsesBody['service_tier']>;
  /** Whether the response is kept for GET and continuation; set false when it could not be. */
  store: boolean;
  previous_response_id: string | null;
}

export interface ResponsesCall extends ParsedChat {
  echo: ResponseEcho;
  /**
   * The conversation so far, as a stored response keeps it for the next to continue: the earlier
   * response's, then this request's input (`instructions` are not part of it: as in OpenAI's API, a
   * continuation does not inherit them).
   */
  conversation: Conversation;
}

/** What `previous_response_id` continues: the system and developer messages and the turns, oldest first. */
export interface Conversation {
  system: string[];
  turns: ChatTurn[];
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** A user message's content, or a function's output: text, or its parts in order (`at` names the list). */
function userParts(content: string | MessagePart[], at: string): string | ContentPart[] {
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

function textOnly(content: string | MessagePart[], at: string, role: string): string {
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
          'item references are not supported: send the item itself, or continue a stored response with previous_response_id (with the Vercel AI SDK, set providerOptions.openai.store to false)',
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

/**
 * The body as the canonical request. `previous` is the stored conversation that `previous_response_id`
 * names (lib/gateway/responses.ts reads it for the key): its turns come first, this input after them.
 */
export function parse(body: ResponsesBody, previous?: Conversation): ResponsesCall {
  if (body.previous_response_id != null && !previous) throw new Error('parse: previous_response_id needs the conversation it names');
  if (body.conversation != null) {
    throw invalid('conversation', 'conversation objects are not supported: continue a stored response with previous_response_id');
  }
  const system: string[] = [];
  const { turns: input, paths: inputPaths } =
    typeof body.input === 'string' ? { turns: [{ role: 'user', content: body.input } as ChatTurn], paths: ['input'] } : turnsOf(body.input, system);
  const earlier = previous?.turns ?? [];
  const turns = [...earlier, ...input];
  const paths = [...earlier.map(() => 'previous_response_id'), ...inputPaths];
  const conversation: Conversation = { system: [...(previous?.system ?? []), ...system], turns };
  const prompt = [...(body.instructions ? [body.instructions] : []), ...conversation.system];
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
      ...(prompt.length > 0 && { system: prompt.join('\n\n') }),
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
      store: body.store ?? true,
      previous_response_id: body.previous_response_id ?? null,
    },
    conversation,
  };
}
