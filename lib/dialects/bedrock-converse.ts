/**
 * Bedrock's Converse API (POST /bedrock/model/{modelId}/converse and /converse-stream) as the
 * canonical model call, and back: what lets an AWS SDK, boto3 or any Converse client call the
 * service's resources with a key.
 *
 * Read: `system` text blocks (a `cachePoint` is a prompt-cache checkpoint after the block before it);
 * user messages keep text, images (`bytes`, base64 on the wire) and `toolResult` blocks (text and json
 * content, `status: error` kept), which become the results of the calls, ahead of the message's other
 * blocks; assistant messages keep text, `toolUse` and `reasoningContent` blocks (thinking with its
 * signature, or redacted), which go back to the model as they came. `inferenceConfig` (maxTokens,
 * temperature, topP, stopSequences) and `toolConfig` (tools with a JSON input schema, toolChoice auto,
 * any or one tool) map onto the canonical request; `additionalModelRequestFields` takes what
 * Anthropic's models take there: `top_k`, `thinking` and `anthropic_beta`.
 *
 * Written: Converse's `output.message` with reasoningContent, text and toolUse blocks, its stopReason,
 * usage (cache reads and writes included) and metrics; or ConverseStream's events, each an AWS
 * event-stream message (lib/dialects/eventstream.ts): messageStart, contentBlockStart (a tool use) /
 * contentBlockDelta (text, toolUse input, reasoningContent text and signature) / contentBlockStop,
 * messageStop, then metadata with the usage the call was recorded as. A failure mid-stream is the
 * stream's exception event (throttlingException, ...), which the SDK throws while iterating.
 */
import { bedrockError, streamExceptionType } from '../http/bedrock-errors';
import type { FeatureFields } from '../calls/metered';
import {
  MIN_THINKING_BUDGET,
  type ChatReply,
  type ChatTurn,
  type ContentPart,
  type FinishReason,
  type ReasoningBlock,
  type ReasoningRequest,
  type SystemPart,
  type ToolChoice,
  type ToolSpec,
} from '../platforms/types';
import {
  argumentsObject,
  argumentsSchema,
  checkCheckpoints,
  checkHasUserTurn,
  checkImageCount,
  checkToolTurns,
  checkTools,
  guarded,
  inlineImage,
  invalid,
  promptTokens,
  replyFinish,
  streamFailure,
  systemPromptOf,
} from './common';
import { documentName } from '../platforms/documents';
import { base64Document, checkDocuments } from './documents';
import { eventMessage, exceptionMessage } from './eventstream';
import type { ContentBlock, ConverseBody, ConverseDocument, ToolResultContent } from './schemas/bedrock';
import type { MeteredEvent, ParsedChat, Settled } from './types';

// ---------------------------------------------------------------------------------------------
// The request, as its schema (./schemas/bedrock.ts) lets it through (the model from the path)
// ---------------------------------------------------------------------------------------------

export type { ConverseBody };

/** The body with the model its path named (ConverseRequest's modelId). */
export type ConverseInput = ConverseBody & { modelId: string };

export type ConverseCall = ParsedChat;

export const fields: FeatureFields = {
  tools: 'toolConfig',
  outputFormat: 'additionalModelRequestFields',
  outputSchema: 'additionalModelRequestFields',
  images: 'messages',
  documents: 'messages',
  reasoning: 'additionalModelRequestFields.thinking',
};

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** The cache checkpoint a `cachePoint` block sets after the part before it (5 minutes: Converse's default). */
const CACHED = { cache: '5m' } as const;

function reasoningOf(body: ConverseBody, maxTokens: number | undefined): ReasoningRequest | undefined {
  const thinking = body.additionalModelRequestFields?.thinking;
  if (!thinking) return undefined;
  if (thinking.type === 'adaptive') return { adaptive: true };
  const at = 'additionalModelRequestFields.thinking.budget_tokens';
  if (thinking.budget_tokens < MIN_THINKING_BUDGET) throw invalid(at, `must be at least ${MIN_THINKING_BUDGET}`);
  if (maxTokens !== undefined && thinking.budget_tokens >= maxTokens)
    throw invalid('inferenceConfig.maxTokens', 'must be greater than thinking.budget_tokens');
  return { budgetTokens: thinking.budget_tokens };
}

/** The text of a tool result: its text blocks, and its json blocks as JSON text. */
const resultText = (content: ToolResultContent[]) => content.map((c) => ('text' in c ? c.text : JSON.stringify(c.json))).join('');

/** A cachePoint marks the part before it; one with nothing before it is refused. */
function markLast(parts: { cache?: string }[], at: string): void {
  const last = parts.at(-1);
  if (!last) throw invalid(at, 'a cachePoint must follow a block it caches');
  last.cache = CACHED.cache;
}

/**
 * A Converse document block as a document part: its bytes checked as every route's are
 * (lib/dialects/documents.ts), its name made to fit Converse's rule as the other dialects' titles are.
 */
function converseDocument(document: ConverseDocument, at: string): ContentPart {
  const mediaType = document.format === 'pdf' ? 'application/pdf' : 'text/plain';
  return base64Document(mediaType, document.source.bytes, documentName(document.name), `${at}.source.bytes`);
}

function userTurns(blocks: ContentBlock[], at: string, messages: ChatTurn[], paths: string[]): void {
  const parts: ContentPart[] = [];
  blocks.forEach((block, j) => {
    const where = `${at}.content.${j}`;
    if ('text' in block) parts.push({ type: 'text', text: block.text });
    else if ('image' in block) parts.push(inlineImage(`image/${block.image.format}`, block.image.source.bytes, `${where}.image`));
    else if ('document' in block) parts.push(converseDocument(block.document, `${where}.document`));
    else if ('cachePoint' in block) {
      const last = parts.at(-1) ?? messages.at(-1);
      if (!last) throw invalid(where, 'a cachePoint must follow a block it caches');
      Object.assign(last, CACHED);
    } else if ('toolResult' in block) {
      messages.push({
        role: 'tool',
        toolCallId: block.toolResult.toolUseId,
        content: resultText(block.toolResult.content),
        ...(block.toolResult.status === 'error' && { isError: true }),
      });
      paths.push(`${where}.toolResult.toolUseId`);
    } else throw invalid(where, 'a user message takes text, image, document, toolResult and cachePoint blocks');
  });
  if (parts.length > 0) {
    messages.push({ role: 'user', content: parts });
    paths.push(at);
  }
}

function assistantTurn(blocks: ContentBlock[], at: string): ChatTurn {
  let text = '';
  let cached = false;
  const toolCalls: { id: string; name: string; arguments: string }[] = [];
  const reasoning: ReasoningBlock[] = [];
  blocks.forEach((block, j) => {
    if ('text' in block) text += block.text;
    else if ('toolUse' in block)
      toolCalls.push({ id: block.toolUse.toolUseId, name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input) });
    else if ('reasoningContent' in block) {
      const content = block.reasoningContent;
      reasoning.push(
        'redactedContent' in content
          ? { type: 'redacted', data: content.redactedContent }
          : { type: 'thinking', text: content.reasoningText.text, signature: content.reasoningText.signature ?? '' },
      );
    } else if ('cachePoint' in block) cached = true;
    else throw invalid(`${at}.content.${j}`, 'an assistant message takes text, toolUse, reasoningContent and cachePoint blocks');
  });
  return {
    role: 'assistant',
    content: text,
    ...(toolCalls.length > 0 && { toolCalls }),
    ...(reasoning.length > 0 && { reasoning }),
    ...(cached ? CACHED : {}),
  };
}

function toolsOf(config: ConverseBody['toolConfig']): { tools: ToolSpec[]; choice?: ToolChoice } {
  const tools: ToolSpec[] = [];
  config?.tools.forEach((tool, i) => {
    if ('cachePoint' in tool) return markLast(tools, `toolConfig.tools.${i}`);
    const spec = tool.toolSpec;
    tools.push({
      name: spec.name,
      ...(spec.description !== undefined && { description: spec.description }),
      parameters: argumentsSchema(spec.inputSchema.json, `toolConfig.tools.${i}.toolSpec.inputSchema.json`),
    });
  });
  const choice = config?.toolChoice;
  if (!choice) return { tools };
  return { tools, choice: 'tool' in choice ? { name: choice.tool.name } : 'any' in choice ? 'required' : 'auto' };
}

export function parse(input: ConverseInput, _headers?: Record<string, string | undefined>, stream = false): ConverseCall {
  const system: SystemPart[] = [];
  input.system?.forEach((block, i) => {
    if ('cachePoint' in block) markLast(system, `system.${i}`);
    else system.push({ type: 'text', text: block.text });
  });
  const messages: ChatTurn[] = [];
  const paths: string[] = [];
  input.messages.forEach((message, i) => {
    const at = `messages.${i}`;
    if (message.role === 'user') return userTurns(message.content, at, messages, paths);
    messages.push(assistantTurn(message.content, at));
    paths.push(at);
  });
  checkHasUserTurn(messages, 'messages');
  checkToolTurns(messages, paths, { result: 'a toolResult', call: 'toolUse' });
  checkImageCount(messages, 'messages');
  checkDocuments(messages, 'messages');

  const { tools, choice } = toolsOf(input.toolConfig);
  checkTools(tools, choice, { tools: 'toolConfig.tools', choice: 'toolConfig.toolChoice' });
  const config = input.inferenceConfig ?? {};
  const extra = input.additionalModelRequestFields ?? {};
  const reasoning = reasoningOf(input, config.maxTokens);
  const systemPrompt = systemPromptOf(system, '\n\n');
  checkCheckpoints({ system: systemPrompt, messages, tools }, 'cachePoint');
  return {
    model: input.modelId,
    stream,
    request: {
      ...(systemPrompt !== undefined && { system: systemPrompt }),
      messages,
      ...(config.maxTokens !== undefined && { maxTokens: config.maxTokens }),
      ...(config.temperature !== undefined && { temperature: config.temperature }),
      ...(config.topP !== undefined && { topP: config.topP }),
      ...(config.stopSequences?.length && { stop: config.stopSequences }),
      ...(extra.top_k !== undefined && { topK: extra.top_k }),
      ...(reasoning && { reasoning }),
      ...(extra.anthropic_beta?.length && { betas: extra.anthropic_beta }),
      ...(tools.length > 0 && { tools }),
      ...(tools.length > 0 && choice !== undefined && { toolChoice: choice }),
    },
  };
}

/** The same, streamed: ConverseStream's body is Converse's. */
export const parseStream = (input: ConverseInput, headers?: Record<string, string | undefined>) => parse(input, headers, true);

/** ConverseStream's media type: AWS's event stream. */
export const streamType = 'application/vnd.amazon.eventstream';

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
};

/** Converse's usage: inputTokens counts the prompt outside the cache, as Bedrock counts it. */
function usageOf(settled: Settled) {
  const { cached, written } = promptTokens(settled);
  return {
    inputTokens: settled.tokensIn,
    outputTokens: settled.tokensOut,
    totalTokens: settled.tokensIn + settled.tokensOut + cached + written,
    ...(cached > 0 && { cacheReadInputTokens: cached }),
    ...(written > 0 && { cacheWriteInputTokens: written }),
  };
}

const reasoningBlock = (block: ReasoningBlock) => ({
  reasoningContent:
    block.type === 'redacted'
      ? { redactedContent: block.data }
      : { reasoningText: { text: block.text, ...(block.signature && { signature: block.signature }) } },
});

/** Converse's answer. */
export function answer(reply: ChatReply, settled: Settled) {
  return {
    output: {
      message: {
        role: 'assistant',
        content: [
          ...(reply.reasoning ?? []).map(reasoningBlock),
          ...(reply.content ? [{ text: reply.content }] : []),
          ...(reply.toolCalls ?? []).map((call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: argumentsObject(call.arguments) } })),
        ],
      },
    },
    stopReason: STOP_REASONS[replyFinish(reply)],
    usage: usageOf(settled),
    metrics: { latencyMs: reply.latencyMs },
  };
}

/** A failure mid-stream as the stream's exception event (throttlingException, ...), which the SDKs throw while iterating. */
export function streamException(err: unknown): Buffer {
  const failure = streamFailure(err, { openAi: true, gateway: true });
  const error = bedrockError(failure.statusCode, 'code' in failure ? failure.code : undefined, failure.message);
  return exceptionMessage(streamExceptionType(error.type), error.body);
}

/** ConverseStream's events, each an event-stream message. */
export async function* frames(events: AsyncIterable<MeteredEvent>): AsyncGenerator<Buffer> {
  const started = Date.now();
  yield eventMessage('messageStart', { role: 'assistant' });
  // Content blocks are numbered from 0 in the order they start; one is open at a time.
  let blocks = 0;
  let open: { index: number; kind: 'text' | 'tool' | 'reasoning' } | undefined;
  const toolBlock = new Map<number, number>();
  let finish: FinishReason | undefined;
  let calledTools = false;
  let settled: Settled | undefined;
  const close = function* () {
    if (open) yield eventMessage('contentBlockStop', { contentBlockIndex: open.index });
    open = undefined;
  };
  const openBlock = function* (kind: 'text' | 'reasoning') {
    if (open?.kind === kind) return (open as { index: number }).index;
    yield* close();
    open = { index: blocks++, kind };
    return open.index;
  };
  const delta = (contentBlockIndex: number, value: Record<string, unknown>) => eventMessage('contentBlockDelta', { contentBlockIndex, delta: value });

  for await (const item of guarded(events)) {
    switch (item.kind) {
      case 'reasoning':
        if (item.text) yield delta(yield* openBlock('reasoning'), { reasoningContent: { text: item.text } });
        break;
      case 'reasoning_signature':
        yield delta(yield* openBlock('reasoning'), { reasoningContent: { signature: item.signature } });
        yield* close();
        break;
      case 'reasoning_redacted':
        yield* close();
        open = { index: blocks++, kind: 'reasoning' };
        yield delta(open.index, { reasoningContent: { redactedContent: item.data } });
        yield* close();
        break;
      case 'text':
        if (item.text) yield delta(yield* openBlock('text'), { text: item.text });
        break;
      case 'tool_call':
        yield* close();
        calledTools = true;
        open = { index: blocks++, kind: 'tool' };
        toolBlock.set(item.index, open.index);
        yield eventMessage('contentBlockStart', { contentBlockIndex: open.index, start: { toolUse: { toolUseId: item.id, name: item.name } } });
        break;
      case 'tool_arguments': {
        const index = toolBlock.get(item.index);
        if (index !== undefined && item.text) yield delta(index, { toolUse: { input: item.text } });
        break;
      }
      case 'stop':
        finish = item.finishReason;
        break;
      case 'settled':
        settled = item;
        break;
      case 'failed':
        yield streamException(item.error);
        return;
      // `usage` is the platform's count; the settled event says what the call was recorded as.
    }
  }
  yield* close();
  yield eventMessage('messageStop', { stopReason: STOP_REASONS[finish ?? (calledTools ? 'tool_calls' : 'stop')] });
  const counted = settled ?? { tokensIn: 0, tokensOut: 0, cost: 0 };
  yield eventMessage('metadata', { usage: usageOf(counted), metrics: { latencyMs: Date.now() - started } });
}
