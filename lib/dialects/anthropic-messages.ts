/**
 * Anthropic's Messages API (POST /v1/messages) as the canonical model call, and back.
 *
 * Read: `system` (a string or text blocks, blank-line separated) and any `system` messages become the
 * system prompt; user messages keep text, images and documents (base64 sources, and text documents;
 * a URL or a file id is refused: the gateway fetches nothing and stores no files) and their `tool_result` blocks become the results
 * of the calls (`is_error` kept), ahead of the message's other blocks; assistant messages keep text and
 * `tool_use` blocks, and their `thinking` and `redacted_thinking` blocks go back to the model as they
 * came (the platform checks each signature against its text). `thinking` (enabled with a budget of
 * at least 1,024 below max_tokens, which the interleaved-thinking beta lifts; or adaptive) is the
 * canonical reasoning request; the `anthropic-beta` header's betas ride along for the metered call to
 * keep those the model takes. `tools` (custom tools with an input_schema), `tool_choice` (auto, any,
 * tool, none; disable_parallel_tool_use), `max_tokens`, `temperature`, `top_p`, `top_k`,
 * `stop_sequences` and `output_config.format` (a JSON schema) map onto the canonical request.
 * `cache_control` on a system block, a content block, a tool result or a tool is a prompt-cache
 * checkpoint right after it (on an assistant message's block: after that message), and on the request
 * itself one after its last block (Anthropic's automatic caching); at most four. Accepted and without
 * effect: `output_config.effort`. `metadata.user_id` is recorded with the call (lib/gateway/attribution.ts);
 * `service_tier` `standard_only` asks for Standard, `auto` for the caller's default tier (lib/calls/tiers.ts).
 *
 * Written: a `message` with thinking, text and `tool_use` blocks and Anthropic's stop reasons, or its
 * stream: message_start, ping, content_block_start / content_block_delta (thinking_delta and
 * signature_delta, which ends a thinking block; text_delta, input_json_delta) /
 * content_block_stop per block, message_delta (stop reason and usage), message_stop. Usage is known
 * only once the call settles, so message_start says 0 tokens and message_delta carries both counts
 * (input_tokens too, which the official clients take from it) and the call's `cost_usd`. Usage counts
 * the prompt as Anthropic does: `input_tokens` what was neither read from nor written to the cache,
 * `cache_read_input_tokens` and `cache_creation_input_tokens` (split by TTL in `cache_creation`) the
 * rest. A failure
 * mid-stream is Anthropic's `error` event, which its clients raise as an APIError of that type.
 */
import {
  MIN_THINKING_BUDGET,
  type ChatTurn,
  type ContentPart,
  type ReasoningBlock,
  type ReasoningRequest,
  type SystemPart,
  type ToolChoice,
  type ToolSpec,
} from '../platforms/types';
import { anthropicErrorBody } from '../http/anthropic-errors';
import {
  argumentsSchema,
  checkCheckpoints,
  systemPromptOf,
  withCache,
  checkHasUserTurn,
  checkImageCount,
  checkToolTurns,
  checkTools,
  inlineImage,
  invalid,
} from './common';
import { anthropicDocument, checkDocuments } from './documents';
import type { AnthropicTool, AnthropicToolChoice, DocumentBlock, ImageBlock, MessagesBody, TextBlock } from './schemas/anthropic-messages';
import type { Checkpoint } from './schemas/shared';
import type { ParsedChat } from './types';
import type { FeatureFields } from '../calls/metered';

// ---------------------------------------------------------------------------------------------
// The request, as its schema (./schemas/anthropic-messages.ts) lets it through
// ---------------------------------------------------------------------------------------------

export type { MessagesBody };

/** What Anthropic's API reads from the request's headers: its betas (anthropic-beta, comma-separated). */
export interface MessagesHeaders {
  'anthropic-beta'?: string;
}

export type MessagesCall = ParsedChat;

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** System text as its pieces (a checkpoint rides on the piece it follows). */
const systemPieces = (content: string | TextBlock[]): SystemPart[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : content.map((b) => ({ type: 'text', text: b.text, ...withCache(b.cache_control) }));

function image(block: ImageBlock, at: string): ContentPart {
  const { source } = block;
  if (source.type === 'base64') return inlineImage(source.media_type, source.data, `${at}.source.data`);
  if (source.type === 'url') {
    throw invalid(
      `${at}.source`,
      'image URLs are not fetched: send the image as base64 ({"type": "base64", "media_type", "data"})',
      'image_url_not_supported',
    );
  }
  throw invalid(`${at}.source`, 'file ids need stored files, and this service stores none: send the image as base64');
}

/** Blocks of text, images and documents (each with its field): a string when there is one text without a checkpoint, else the parts in order. */
function contentOf(blocks: { block: TextBlock | ImageBlock | DocumentBlock; at: string }[]): string | ContentPart[] {
  const only = blocks.length === 1 ? blocks[0]?.block : undefined;
  if (only?.type === 'text' && !only.cache_control) return only.text;
  return blocks.map(({ block, at }) => ({
    ...(block.type === 'text'
      ? { type: 'text' as const, text: block.text }
      : block.type === 'image'
        ? image(block, at)
        : anthropicDocument(block, at)),
    ...withCache(block.cache_control),
  }));
}

function toolSpecs(tools: AnthropicTool[] | undefined): ToolSpec[] {
  return (tools ?? []).map((tool, i) => ({
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    parameters: argumentsSchema(tool.input_schema, `tools.${i}.input_schema`),
    ...(tool.strict !== undefined && { strict: tool.strict }),
    ...withCache(tool.cache_control),
  }));
}

const CHOICES: Record<Exclude<AnthropicToolChoice['type'], 'tool'>, ToolChoice> = { auto: 'auto', any: 'required', none: 'none' };

/** The interleaved-thinking beta: Claude may think between tool calls, and its budget may pass max_tokens. */
const INTERLEAVED = /^interleaved-thinking-/;

/** The betas of an anthropic-beta header, in order, once each. */
export const betasOf = (header: string | undefined): string[] => [
  ...new Set(
    (header ?? '')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
  ),
];

/** Anthropic's thinking as the canonical reasoning request, checked as Anthropic checks it. */
function reasoningOf(body: MessagesBody, betas: string[]): ReasoningRequest | undefined {
  const thinking = body.thinking;
  if (!thinking || thinking.type === 'disabled') return undefined;
  const interleaved = betas.some((b) => INTERLEAVED.test(b));
  if (thinking.type === 'adaptive') return { adaptive: true, ...(interleaved && { interleaved }) };
  if (thinking.budget_tokens < MIN_THINKING_BUDGET) throw invalid('thinking.budget_tokens', `must be at least ${MIN_THINKING_BUDGET}`);
  if (!interleaved && thinking.budget_tokens >= body.max_tokens)
    throw invalid('max_tokens', 'must be greater than thinking.budget_tokens (unless the interleaved-thinking beta is on)');
  return { budgetTokens: thinking.budget_tokens, ...(interleaved && { interleaved }) };
}

export function parse(body: MessagesBody, headers: MessagesHeaders = {}): MessagesCall {
  const betas = betasOf(headers['anthropic-beta']);
  const reasoning = reasoningOf(body, betas);
  const system: SystemPart[] = body.system === undefined ? [] : systemPieces(body.system);
  const messages: ChatTurn[] = [];
  const paths: string[] = [];
  body.messages.forEach((message, i) => {
    const at = `messages.${i}`;
    if (message.role === 'system') {
      system.push(...systemPieces(message.content));
      return;
    }
    if (typeof message.content === 'string') {
      messages.push({ role: message.role, content: message.content });
      paths.push(at);
      return;
    }
    if (message.role === 'assistant') {
      let text = '';
      let cache: Checkpoint | undefined;
      const toolCalls: { id: string; name: string; arguments: string }[] = [];
      const reasoning: ReasoningBlock[] = [];
      for (const block of message.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
        // Thinking goes back to the model as it came (its signature is checked against it there).
        else if (block.type === 'thinking') reasoning.push({ type: 'thinking', text: block.thinking, signature: block.signature });
        else if (block.type === 'redacted_thinking') reasoning.push({ type: 'redacted', data: block.data });
        if ('cache_control' in block && block.cache_control) cache = block.cache_control;
      }
      messages.push({
        role: 'assistant',
        content: text,
        ...(toolCalls.length > 0 && { toolCalls }),
        ...(reasoning.length > 0 && { reasoning }),
        ...withCache(cache),
      });
      paths.push(at);
      return;
    }
    // A user message: its tool results first (they answer the turn before), then what the user adds.
    const rest: { block: TextBlock | ImageBlock | DocumentBlock; at: string }[] = [];
    message.content.forEach((block, j) => {
      const where = `${at}.content.${j}`;
      if (block.type !== 'tool_result') {
        rest.push({ block, at: where });
        return;
      }
      const content =
        block.content === undefined
          ? ''
          : typeof block.content === 'string'
            ? block.content
            : contentOf(block.content.map((b, k) => ({ block: b, at: `${where}.content.${k}` })));
      messages.push({
        role: 'tool',
        toolCallId: block.tool_use_id,
        content,
        ...(block.is_error && { isError: true }),
        ...withCache(block.cache_control),
      });
      paths.push(`${where}.tool_use_id`);
    });
    if (rest.length > 0) {
      messages.push({ role: 'user', content: contentOf(rest) });
      paths.push(at);
    }
  });
  checkHasUserTurn(messages, 'messages');
  checkToolTurns(messages, paths, { result: 'a tool_result', call: 'tool_use' });
  checkImageCount(messages, 'messages');
  checkDocuments(messages, 'messages');
  if (body.cache_control) cacheAfterLast(messages, body.cache_control);

  const tools = toolSpecs(body.tools);
  const choice = body.tool_choice;
  const toolChoice: ToolChoice | undefined = choice === undefined ? undefined : choice.type === 'tool' ? { name: choice.name } : CHOICES[choice.type];
  checkTools(tools, toolChoice, { tools: 'tools', choice: 'tool_choice' });
  const noParallel = choice !== undefined && choice.type !== 'none' && choice.disable_parallel_tool_use === true;
  const format = body.output_config?.format;
  const systemPrompt = systemPromptOf(system, '\n\n');
  checkCheckpoints({ system: systemPrompt, messages, tools }, 'cache_control');
  return {
    model: body.model,
    stream: body.stream ?? false,
    request: {
      ...(systemPrompt !== undefined && { system: systemPrompt }),
      messages,
      maxTokens: body.max_tokens,
      ...(body.temperature !== undefined && { temperature: body.temperature }),
      ...(body.top_p !== undefined && { topP: body.top_p }),
      ...(body.top_k !== undefined && { topK: body.top_k }),
      ...(body.stop_sequences?.length && { stop: body.stop_sequences }),
      ...(reasoning && { reasoning }),
      // `auto` leaves the tier to the caller's key and teams (Standard unless they say otherwise); `standard_only` asks for Standard.
      ...(body.service_tier === 'standard_only' && { serviceTier: 'default' as const }),
      ...(betas.length > 0 && { betas }),
      ...(tools.length > 0 && { tools }),
      ...(tools.length > 0 && toolChoice !== undefined && { toolChoice }),
      ...(tools.length > 0 && noParallel && { parallelToolCalls: false }),
      // Anthropic's structured outputs always hold to the schema.
      ...(format && { outputFormat: { type: 'json_schema', name: 'output', schema: format.schema, strict: true } }),
    },
  };
}

/** Automatic caching: a checkpoint after the last block of the last message. */
function cacheAfterLast(messages: ChatTurn[], control: Checkpoint): void {
  const last = messages.at(-1);
  if (!last) return;
  if (last.role !== 'user') {
    Object.assign(last, withCache(control));
    return;
  }
  const parts: ContentPart[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const end = parts.at(-1);
  if (end) parts[parts.length - 1] = { ...end, ...withCache(control) };
  last.content = parts;
}

// Writing: lib/dialects/anthropic-messages-answer.ts
export { answer, frames, messageId } from './anthropic-messages-answer';

/** Anthropic's error body: `{"type": "error", "error": {"type", "message"}}`. */
export { anthropicErrorBody as errorBody };

/** The fields of the features a model may lack, as Anthropic's Messages API names them (the refusal's `param`). */
export const fields: FeatureFields = {
  tools: 'tools',
  outputFormat: 'output_config.format',
  outputSchema: 'output_config.format.schema',
  images: 'messages',
  documents: 'messages',
  reasoning: 'thinking',
};
