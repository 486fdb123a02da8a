/**
 * Chat with a managed model: Bedrock runtime Converse and ConverseStream. Its own module, so that only
 * the chat functions bundle the Bedrock runtime client (and the catalogue functions only the control
 * client).
 *
 * Beyond text (the wire format is Converse's; features.ts says which model does what):
 * - tools: `toolConfig` (each tool a toolSpec with its JSON Schema as inputSchema.json); tool choice
 *   auto, any (OpenAI's required) or tool (a named one). Converse has no "none": the tools are left
 *   out, and since Converse refuses toolUse/toolResult blocks without a toolConfig, a history that has
 *   them is then written as text. Assistant tool calls are `toolUse` blocks; consecutive tool results
 *   are one user message of `toolResult` blocks (status error for a failed call).
 * - JSON output: no model deployed on demand has Bedrock's native structured output, so the answer is
 *   a forced call of one tool (`json_output`, the schema as its input schema, `{type: object}` for
 *   json_object) whose input becomes the reply's text: finish reason stop, no tool call shown, streamed
 *   as text deltas. Parallel tool calls are the model's choice (Converse has no switch for them).
 * - images: Converse image blocks (png, jpeg, gif, webp; the bytes) in user messages and tool results.
 * - documents: Converse document blocks (pdf or txt, the name Converse requires, the bytes) in user
 *   messages, for the models that read them (features.ts `managedDocuments`).
 * - a model that calls tools but not while streaming (Cohere Command R, Llama 3.1, Mistral Large):
 *   the call is made with Converse and its answer replayed as stream events.
 * - prompt caching: a checkpoint the request asks for (a part's, a turn's, a system piece's or a tool's
 *   `cache`) becomes a `cachePoint` block right after it, where the model caches and takes checkpoints
 *   in that field (features.ts `cachingOf`); elsewhere it is left out, since Converse refuses a
 *   cachePoint the model cannot honour. A TTL the model does not offer is refused (BadRequest). The
 *   answer's usage says what was read and written (cacheReadInputTokens; cacheDetails by TTL).
 * - service tiers: `serviceTier` goes as Converse's `serviceTier.type`; the answer says which tier
 *   served it (`serviceTier` of the response and of the stream's metadata event).
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ContentBlock,
  type ConverseCommandOutput,
  type ImageFormat,
  type Message,
  type SystemContentBlock,
  type Tool,
  type ToolChoice as ConverseToolChoice,
  type ToolConfiguration,
  type ToolResultContentBlock,
  type ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { BadRequest, UpstreamError, type DomainError } from '../../errors';
import { PlatformClient, http2ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorMessage, errorName, guard, toUpstreamError, unreadable, upstreamDetail } from '../errors';
import { jsonOutputTool } from '../json-output';
import type {
  ChatCapable,
  ChatReply,
  ChatRequest,
  ChatStreamEvent,
  ChatTurn,
  ContentPart,
  FinishReason,
  ReasoningBlock,
  ServiceTier,
  ToolCall,
  ToolSpec,
} from '../types';
import { CachePoints, NO_CACHE_POINTS, cacheTokensOf } from './cache-points';
import { countConverseTokens } from './count-tokens';
import { cachingOf, converseFeatures, type ConverseFeatures } from './features';
import { modelRequestFields, rethrowModelRefusal, readReasoningBlock, reasoningBlocks, reasoningEvent, reasoningEvents, turnsFor } from './reasoning';
import { traced } from '#tracing';

const PLATFORM = 'managed' as const;

// ---------------------------------------------------------------------------------------------
// Request: messages, tools
// ---------------------------------------------------------------------------------------------

const imageBlock = (part: Extract<ContentPart, { type: 'image' }>) => ({
  image: { format: part.mediaType.slice('image/'.length) as ImageFormat, source: { bytes: Buffer.from(part.data, 'base64') } },
});

/** A document as Converse takes it: its format, the name Converse requires, and its bytes. */
const documentBlock = (part: Extract<ContentPart, { type: 'document' }>) => ({
  document: { format: part.format, name: part.name, source: { bytes: Buffer.from(part.data, 'base64') } },
});

/** A user message's (or tool result's) parts as Converse blocks; blank texts are left out (Converse refuses them). */
function partBlocks(content: string | ContentPart[], cache: CachePoints): ContentBlock[] {
  const parts: ContentPart[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return parts.flatMap((p): ContentBlock[] => [
    ...(p.type === 'image' ? [imageBlock(p)] : p.type === 'document' ? [documentBlock(p)] : p.text.trim() ? [{ text: p.text }] : []),
    ...cache.after(p.cache, 'messages'),
  ]);
}

/** Tool arguments (JSON text) as a toolUse input, which must be a JSON object. */
function argumentsObject(text: string): ToolUseBlock['input'] {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as ToolUseBlock['input']) : {};
  } catch {
    return {};
  }
}

const textOfParts = (content: string | ContentPart[]) =>
  typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('');

/** One turn as a role and its blocks. Without tool blocks (`keepTools` false) calls and results are written as text. */
function turnBlocks(turn: ChatTurn, keepTools: boolean, cache: CachePoints): { role: 'user' | 'assistant'; blocks: ContentBlock[] } {
  if (turn.role === 'user') return { role: 'user', blocks: partBlocks(turn.content, cache) };
  if (turn.role === 'assistant') {
    const calls = turn.toolCalls ?? [];
    const blocks: ContentBlock[] = [...reasoningBlocks(turn.reasoning), ...(turn.content.trim() ? [{ text: turn.content }] : [])];
    for (const call of calls) {
      blocks.push(
        keepTools
          ? { toolUse: { toolUseId: call.id, name: call.name, input: argumentsObject(call.arguments) } }
          : { text: `[called the tool ${call.name} with ${call.arguments}]` },
      );
    }
    if (blocks.length > 0) blocks.push(...cache.after(turn.cache, 'messages'));
    return { role: 'assistant', blocks };
  }
  if (!keepTools)
    return {
      role: 'user',
      blocks: [
        { text: `[the tool call ${turn.toolCallId} ${turn.isError ? 'failed' : 'returned'}: ${textOfParts(turn.content)}]` },
        ...cache.after(turn.cache, 'messages'),
      ],
    };
  // A tool result holds text and images only: a checkpoint on it, or on a piece of it, goes after the result block.
  const content = partBlocks(turn.content, NO_CACHE_POINTS) as ToolResultContentBlock[];
  const inner = typeof turn.content === 'string' ? undefined : turn.content.findLast((p) => p.cache)?.cache;
  return {
    role: 'user',
    blocks: [
      {
        toolResult: {
          toolUseId: turn.toolCallId,
          // Converse refuses an empty result.
          content: content.length > 0 ? content : [{ text: '(no output)' }],
          ...(turn.isError ? { status: 'error' as const } : {}),
        },
      },
      ...cache.after(turn.cache ?? inner, 'messages'),
    ],
  };
}

/**
 * Converse wants user and assistant strictly alternating, starting with the user, and no blank text:
 * consecutive turns of one role become one message (adjacent texts joined by a blank line), turns
 * with nothing to send are dropped, and so is whatever comes before the first user message.
 */
export function toConverseMessages(turns: ChatTurn[], keepTools = true, cache = NO_CACHE_POINTS): Message[] {
  const merged: { role: 'user' | 'assistant'; blocks: ContentBlock[] }[] = [];
  for (const turn of turns) {
    const { role, blocks } = turnBlocks(turn, keepTools, cache);
    if (blocks.length === 0) continue;
    if (merged.length === 0 && (role !== 'user' || blocks.some((b) => b.toolResult))) continue;
    // A message of checkpoints alone would be an empty message: there is nothing to cache after.
    if (blocks.every((b) => b.cachePoint)) continue;
    const last = merged.at(-1);
    if (!last || last.role !== role) {
      merged.push({ role, blocks: [...blocks] });
      continue;
    }
    for (const block of blocks) {
      const previous = last.blocks.at(-1);
      if (block.text !== undefined && previous?.text !== undefined)
        last.blocks[last.blocks.length - 1] = { text: `${previous.text}\n\n${block.text}` };
      else last.blocks.push(block);
    }
  }
  return merged.map((m) => ({ role: m.role, content: m.blocks }));
}

const toolSpec = (tool: ToolSpec): Tool => ({
  toolSpec: { name: tool.name, description: tool.description || undefined, inputSchema: { json: tool.parameters as never } },
});

/** The tools, each followed by its checkpoint where it asks for one and the model caches tools. */
const toolList = (tools: ToolSpec[], cache: CachePoints): Tool[] => tools.flatMap((t): Tool[] => [toolSpec(t), ...cache.after(t.cache, 'tools')]);

/** How a call to one named tool is forced on this model: `tool` where it has it, else `any` when it is the only tool. */
function forceTool(target: string, features: ConverseFeatures, name: string, only: boolean, param: string): ConverseToolChoice {
  if (features.forcedTool === 'tool') return { tool: { name } };
  if (features.forcedTool === 'any' && only) return { any: {} };
  throw new BadRequest(`The managed model "${target}" cannot be made to call a given tool`, { param });
}

interface ToolPlan {
  toolConfig?: ToolConfiguration;
  /** The tool whose input is the JSON answer, when the output format is done by a forced tool call. */
  jsonTool?: string;
  /** Whether the history's tool calls and results go as tool blocks (only with a toolConfig). */
  keepTools: boolean;
}

/** The toolConfig of a request, and how its answer is read. */
function planTools(request: ChatRequest, cache: CachePoints): ToolPlan {
  const { target } = request;
  const features = converseFeatures(request.model ?? target);
  const choice = request.toolChoice ?? 'auto';
  const userTools = choice === 'none' ? [] : (request.tools ?? []);
  if (userTools.length > 0 && !features.tools) throw new BadRequest(`The managed model "${target}" cannot use tools`, { param: 'tools' });

  // JSON output rides on a forced tool call, unless the caller forces a tool call of its own.
  if (request.outputFormat && choice !== 'required' && typeof choice !== 'object') {
    if (features.forcedTool === 'none') {
      throw new BadRequest(`The managed model "${target}" cannot answer in JSON (it cannot be made to call a tool)`, { param: 'response_format' });
    }
    const json = jsonOutputTool(request.outputFormat, userTools);
    const tools = [...userTools, json];
    const toolChoice = tools.length === 1 ? forceTool(target, features, json.name, true, 'response_format') : { any: {} };
    return { toolConfig: { tools: [...toolList(userTools, cache), toolSpec(json)], toolChoice }, jsonTool: json.name, keepTools: true };
  }
  if (userTools.length === 0) return { keepTools: false };

  let toolChoice: ConverseToolChoice | undefined;
  if (choice === 'required') {
    if (features.forcedTool === 'none') throw new BadRequest(`The managed model "${target}" cannot be made to call a tool`, { param: 'tool_choice' });
    toolChoice = { any: {} };
  } else if (typeof choice === 'object') {
    if (!userTools.some((t) => t.name === choice.name))
      throw new BadRequest(`tool_choice names "${choice.name}", which is not among the tools`, { param: 'tool_choice' });
    toolChoice = forceTool(target, features, choice.name, userTools.length === 1, 'tool_choice');
  }
  return { toolConfig: { tools: toolList(userTools, cache), toolChoice }, keepTools: true };
}

/** Converse's inferenceConfig from a request's limits and sampling; undefined when it sets none. */
function inferenceConfig(request: ChatRequest) {
  const config = { maxTokens: request.maxTokens, temperature: request.temperature, topP: request.topP, stopSequences: request.stop };
  return Object.values(config).some((v) => v !== undefined) ? config : undefined;
}

/** The system prompt's blocks (blank pieces left out), each followed by its checkpoint; undefined when there is none. */
function systemBlocks(request: ChatRequest, cache: CachePoints): SystemContentBlock[] | undefined {
  const pieces = typeof request.system === 'string' ? [{ type: 'text' as const, text: request.system }] : (request.system ?? []);
  const blocks = pieces.flatMap((p): SystemContentBlock[] => (p.text.trim() ? [{ text: p.text }, ...cache.after(p.cache, 'system')] : []));
  return blocks.length > 0 ? blocks : undefined;
}

/** The request's plan: how its tools go, and where its checkpoints may. */
function planOf(request: ChatRequest): { plan: ToolPlan; cache: CachePoints } {
  const cache = new CachePoints(request.target, cachingOf(request.model ?? request.target));
  return { plan: planTools(request, cache), cache };
}

/** What Converse and ConverseStream both take: the model, the system prompt (when not blank), the turns, tools, sampling and tier. */
function converseInput(request: ChatRequest, plan: ToolPlan, cache: CachePoints) {
  return {
    modelId: request.target,
    system: systemBlocks(request, cache),
    messages: toConverseMessages(turnsFor(request), plan.keepTools, cache),
    inferenceConfig: inferenceConfig(request),
    toolConfig: plan.toolConfig,
    additionalModelRequestFields: modelRequestFields(request),
    ...(request.serviceTier && { serviceTier: { type: request.serviceTier } }),
  };
}

/** The tier the platform says served the call. */
const tierOf = (tier: { type?: string } | undefined): ServiceTier | undefined =>
  tier?.type === 'default' || tier?.type === 'flex' || tier?.type === 'priority' ? tier.type : undefined;

/** Converse's stop reason in OpenAI's words. */
function finishOf(stopReason: string | undefined): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** The answer's blocks as text and tool calls; the JSON tool's input is the text. */
function readAnswer(
  out: ConverseCommandOutput,
  plan: ToolPlan,
): { content: string; toolCalls: ToolCall[]; finishReason: FinishReason; reasoning: ReasoningBlock[] } {
  const blocks = out.output?.message?.content;
  if (!Array.isArray(blocks)) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
  const texts: string[] = [];
  const reasoning: ReasoningBlock[] = [];
  const toolCalls: ToolCall[] = [];
  let json: string | undefined;
  for (const block of blocks) {
    if (typeof block.text === 'string') texts.push(block.text);
    else if (block.reasoningContent) {
      const read = readReasoningBlock(block.reasoningContent);
      if (read) reasoning.push(read);
    } else if (block.toolUse && plan.jsonTool && block.toolUse.name === plan.jsonTool) json = JSON.stringify(block.toolUse.input ?? {});
    else if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId ?? `tooluse_${toolCalls.length}`,
        name: block.toolUse.name ?? '',
        arguments: JSON.stringify(block.toolUse.input ?? {}),
      });
    }
  }
  const finish = finishOf(out.stopReason);
  return {
    // In JSON mode only the document is the answer (a model's remarks around it would break the JSON).
    content: json ?? (plan.jsonTool && toolCalls.length > 0 ? '' : texts.join('')),
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : finish === 'tool_calls' ? 'stop' : finish,
    reasoning,
  };
}

// ---------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------

export class BedrockConverseChat implements ChatCapable {
  private readonly runtime: PlatformClient<BedrockRuntimeClient>;

  constructor(options: AwsPlatformOptions) {
    this.runtime = new PlatformClient((throttling) => traced(new BedrockRuntimeClient(http2ClientConfig({ ...options, throttling }))));
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const { plan, cache } = planOf(request);
    const started = Date.now();
    const out = await guard(PLATFORM, () =>
      this.runtime
        .for(request)
        .send(new ConverseCommand(converseInput(request, plan, cache)))
        .catch(rethrowModelRefusal),
    );
    const { content, toolCalls, finishReason, reasoning } = readAnswer(out, plan);
    return {
      content,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(reasoning.length > 0 ? { reasoning } : {}),
      tokensIn: out.usage?.inputTokens ?? 0,
      tokensOut: out.usage?.outputTokens ?? 0,
      latencyMs: out.metrics?.latencyMs ?? Date.now() - started,
      modelId: request.target,
      finishReason,
      ...optional('cache', cacheTokensOf(out.usage, request)),
      ...optional('serviceTier', tierOf(out.serviceTier)),
    };
  }

  /**
   * ConverseStream: contentBlockDelta texts, each toolUse block's start (id, name) and input pieces,
   * messageStop's reason and metadata's usage become the stream's events. An exception event
   * (modelStreamErrorException and the like) is thrown by the SDK while iterating, and mapped like any
   * other failure.
   */
  async *chatStream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    const { plan, cache } = planOf(request);
    if (plan.toolConfig && !converseFeatures(request.model ?? request.target).streamTools) {
      yield* this.replayed(request);
      return;
    }
    const started = Date.now();
    const out = await guard(PLATFORM, () =>
      this.runtime
        .for(request)
        .send(new ConverseStreamCommand(converseInput(request, plan, cache)), { abortSignal: signal })
        .catch(rethrowModelRefusal),
    );
    if (!out.stream) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    // Converse numbers content blocks (text and tool calls alike); tool calls are numbered apart.
    const blocks = new Map<number, { json: true } | { json: false; index: number }>();
    let calls = 0;
    let answeredJson = false;
    try {
      for await (const event of out.stream) {
        const start = event.contentBlockStart;
        const delta = event.contentBlockDelta;
        if (start?.start?.toolUse) {
          const { toolUseId, name } = start.start.toolUse;
          if (plan.jsonTool && name === plan.jsonTool) {
            blocks.set(start.contentBlockIndex ?? -1, { json: true });
            answeredJson = true;
          } else {
            const index = calls++;
            blocks.set(start.contentBlockIndex ?? -1, { json: false, index });
            yield { kind: 'tool_call', index, id: toolUseId ?? `tooluse_${index}`, name: name ?? '' };
          }
        } else if (delta?.delta?.toolUse) {
          const block = blocks.get(delta.contentBlockIndex ?? -1);
          const text = delta.delta.toolUse.input ?? '';
          if (!block || !text) continue;
          yield block.json ? { kind: 'text', text } : { kind: 'tool_arguments', index: block.index, text };
        } else if (delta?.delta?.reasoningContent) {
          const reasoning = reasoningEvent(delta.delta.reasoningContent);
          if (reasoning) yield reasoning;
        } else if (delta?.delta?.text) {
          // In JSON mode only the document is the answer.
          if (!plan.jsonTool) yield { kind: 'text', text: delta.delta.text };
        } else if (event.messageStop) {
          const finish = finishOf(event.messageStop.stopReason);
          yield { kind: 'stop', finishReason: calls > 0 ? 'tool_calls' : finish === 'tool_calls' && answeredJson ? 'stop' : finish };
        } else if (event.metadata) {
          yield {
            kind: 'usage',
            tokensIn: event.metadata.usage?.inputTokens ?? 0,
            tokensOut: event.metadata.usage?.outputTokens ?? 0,
            latencyMs: event.metadata.metrics?.latencyMs ?? Date.now() - started,
            modelId: request.target,
            ...optional('cache', cacheTokensOf(event.metadata.usage, request)),
            ...optional('serviceTier', tierOf(event.metadata.serviceTier)),
          };
        }
      }
    } catch (err) {
      throw streamError(err);
    }
  }

  /** A model that cannot stream tool use: one Converse call, its answer as the events a stream would have had. */
  private async *replayed(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    const reply = await this.chat(request);
    yield* reasoningEvents(reply.reasoning);
    if (reply.content) yield { kind: 'text', text: reply.content };
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      yield { kind: 'tool_call', index, id: call.id, name: call.name };
      yield { kind: 'tool_arguments', index, text: call.arguments };
    }
    yield { kind: 'stop', finishReason: reply.finishReason ?? 'stop' };
    const { tokensIn, tokensOut, latencyMs, modelId, cache, serviceTier } = reply;
    yield { kind: 'usage', tokensIn, tokensOut, latencyMs, modelId, ...optional('cache', cache), ...optional('serviceTier', serviceTier) };
  }

  /** Bedrock's CountTokens for the request's messages, system prompt and tools, where the model has it. */
  countTokens(request: ChatRequest): Promise<number | undefined> {
    const { plan, cache } = planOf(request);
    const { messages, system, toolConfig, additionalModelRequestFields } = converseInput(request, plan, cache);
    return countConverseTokens(this.runtime.for(request), request, { messages, system, toolConfig, additionalModelRequestFields });
  }

  /** Closes the client's sessions (tests; a Lambda container just freezes). */
  destroy(): void {
    this.runtime.destroy();
  }
}

/** `{ [key]: value }` when there is a value, else nothing (exactOptionalPropertyTypes-friendly spreading). */
const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

/** A failure while the answer streamed: the model broke off (an exception event), or the connection did. */
function streamError(err: unknown): DomainError {
  const mapped = toUpstreamError(PLATFORM, err);
  if (/ModelStreamError/i.test(errorName(err))) {
    return new UpstreamError(PLATFORM, 'The model on the managed platform failed while answering', 'failed', upstreamDetail(errorMessage(err)));
  }
  return mapped;
}

export function createManagedChat(overrides: Partial<AwsPlatformOptions> = {}): BedrockConverseChat {
  return new BedrockConverseChat(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const managedChat: ChatCapable = /* @__PURE__ */ createManagedChat();
