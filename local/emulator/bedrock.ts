/**
 * Amazon Bedrock, control plane and runtime (both restJson1, both signed as "bedrock"):
 * ListFoundationModels, GetFoundationModel, the inference-profile operations (bedrock-profiles.ts),
 * Converse and ConverseStream (text, images, documents, tool use), and InvokeModel for the embedding models (Titan
 * Text Embeddings v2 and Cohere Embed v3 and v4, each its own body), CountTokens (count-tokens.ts). Runtime calls name a model by base
 * id (only where it is offered on demand), by system profile or by application profile ARN.
 */
import { cacheCall } from './prompt-cache';
import { countTokens } from './count-tokens';
import {
  createInferenceProfile,
  deleteInferenceProfile,
  findFoundationModel,
  foundationModelArn,
  getInferenceProfile,
  listInferenceProfiles,
  listTagsForResource,
  resolveRuntimeTarget,
  tagResource,
  untagResource,
} from './bedrock-profiles';
import { FOUNDATION_MODELS, type FoundationModel } from './catalogue';
import {
  embeddingOf,
  emulateChat,
  isImage,
  modelLatency,
  piecesOf,
  str,
  tokensFor,
  type ChatRequest,
  type ChatResult,
  type ChatTurn,
  type ToolResultIn,
} from './chat';
import { DocumentReader, type DocumentIn } from './documents';
import { eventFrame, exceptionFrame } from './eventstream';
import { checkReasoningBlock, checkThinkingTurn, readReasoning, reasoningOf, type ReasoningBlockIn } from './reasoning';
import { EmulatorError, jsonReply, parseJson, signedBy, streamReply, type Ctx, type Reply, type Route, type ServiceDef } from './shared';

const MODEL_NOT_FOUND = 'Could not resolve the foundation model from the provided model identifier.';
const MUST_START_WITH_USER = 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
const MUST_ALTERNATE =
  'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
const NOT_A_CHAT_MODEL = "This action doesn't support the model that you provided. Try again with a supported text or chat model.";

const validation = (message: string) => new EmulatorError(400, 'ValidationException', message);

/** The model a runtime call reaches, counted under the identifier it was called with. */
function runtimeModel(ctx: Ctx, identifier: string): FoundationModel {
  ctx.state.runtimeTargets[identifier] = (ctx.state.runtimeTargets[identifier] ?? 0) + 1;
  const caller = signedBy(ctx);
  if (caller) {
    const mine = (ctx.state.runtimeTargetsByCaller[caller] ??= {});
    mine[identifier] = (mine[identifier] ?? 0) + 1;
  }
  return resolveRuntimeTarget(ctx, identifier).model;
}

function summary(region: string, m: FoundationModel) {
  return {
    modelArn: foundationModelArn(region, m.modelId),
    modelId: m.modelId,
    modelName: m.modelName,
    providerName: m.providerName,
    inputModalities: m.inputModalities,
    outputModalities: m.outputModalities,
    responseStreamingSupported: m.responseStreamingSupported,
    customizationsSupported: m.customizationsSupported,
    inferenceTypesSupported: m.inferenceTypesSupported,
    modelLifecycle: m.lifecycle,
  };
}

const ENUM_FILTERS: Record<string, { values: string[]; field: keyof FoundationModel }> = {
  byCustomizationType: { values: ['FINE_TUNING', 'CONTINUED_PRE_TRAINING', 'DISTILLATION'], field: 'customizationsSupported' },
  byOutputModality: { values: ['TEXT', 'IMAGE', 'EMBEDDING'], field: 'outputModalities' },
  byInferenceType: { values: ['ON_DEMAND', 'PROVISIONED'], field: 'inferenceTypesSupported' },
};

async function listFoundationModels(ctx: Ctx): Promise<Reply> {
  let models = FOUNDATION_MODELS;
  const provider = ctx.query.get('byProvider');
  if (provider) models = models.filter((m) => m.providerName.toLowerCase() === provider.toLowerCase());
  for (const [param, { values, field }] of Object.entries(ENUM_FILTERS)) {
    const value = ctx.query.get(param);
    if (value === null) continue;
    if (!values.includes(value)) {
      throw validation(
        `1 validation error detected: Value '${value}' at '${param}' failed to satisfy constraint: ` +
          `Member must satisfy enum value set: [${values.join(', ')}]`,
      );
    }
    models = models.filter((m) => (m[field] as string[]).includes(value));
  }
  return jsonReply({ modelSummaries: models.map((m) => summary(ctx.opts.region, m)) });
}

async function getFoundationModel(ctx: Ctx, identifier: string): Promise<Reply> {
  const model = findFoundationModel(identifier);
  if (!model) throw new EmulatorError(404, 'ResourceNotFoundException', MODEL_NOT_FOUND);
  return jsonReply({ modelDetails: summary(ctx.opts.region, model) });
}

interface ContentBlockIn {
  text?: unknown;
  image?: { format?: unknown; source?: { bytes?: unknown } };
  document?: DocumentIn;
  toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown };
  toolResult?: { toolUseId?: unknown; content?: { text?: unknown; json?: unknown; image?: unknown }[]; status?: unknown };
  reasoningContent?: ReasoningBlockIn;
}

interface ConverseBody {
  messages?: Array<{ role?: string; content?: ContentBlockIn[] }>;
  system?: Array<{ text?: string; cachePoint?: { type?: unknown; ttl?: unknown } }>;
  serviceTier?: { type?: unknown };
  inferenceConfig?: { maxTokens?: number; temperature?: number };
  additionalModelRequestFields?: Record<string, unknown>;
  toolConfig?: {
    tools?: { toolSpec?: { name?: unknown; inputSchema?: { json?: unknown } } }[];
    toolChoice?: { auto?: unknown; any?: unknown; tool?: { name?: unknown } };
  };
}

const NO_TOOL_USE = "This model doesn't support tool use.";
const NO_STREAMED_TOOL_USE = "This model doesn't support tool use in streaming mode.";
const TOOL_CONFIG_REQUIRED = 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
const NO_IMAGES = "This model doesn't support the image content block that you provided. Try again with a model that supports image input.";

/** The tool configuration as the emulated model's tools and choice, refused where the model cannot take it. */
function readToolConfig(model: FoundationModel, config: ConverseBody['toolConfig'], streamed: boolean) {
  if (!config) return {};
  const features = model.converse;
  if (!features?.tools) throw validation(NO_TOOL_USE);
  if (streamed && !features.streamTools) throw validation(NO_STREAMED_TOOL_USE);
  const specs = Array.isArray(config.tools) ? config.tools : [];
  if (specs.length === 0) {
    throw validation(
      "1 validation error detected: Value at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  }
  const tools = specs.map((t, i) => {
    const name = t.toolSpec?.name;
    const schema = t.toolSpec?.inputSchema?.json;
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw validation(
        `1 validation error detected: Value at 'toolConfig.tools.${i + 1}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`,
      );
    }
    if (!schema || typeof schema !== 'object' || (schema as { type?: unknown }).type !== 'object') {
      throw validation(`The value at toolConfig.tools.${i}.toolSpec.inputSchema.json.type must be object`);
    }
    return { name, schema: schema as Record<string, unknown> };
  });
  const choice = config.toolChoice;
  let toolChoice: ChatRequest['toolChoice'] = 'auto';
  if (choice?.any !== undefined) {
    if (!features.toolChoice.includes('any'))
      throw validation("This model doesn't support the toolChoice.any field. Remove toolChoice.any and try again.");
    toolChoice = 'any';
  } else if (choice?.tool !== undefined) {
    if (!features.toolChoice.includes('tool'))
      throw validation("This model doesn't support the toolChoice.tool field. Remove toolChoice.tool and try again.");
    const name = choice.tool.name;
    if (typeof name !== 'string' || !tools.some((t) => t.name === name))
      throw validation(`The tool ${String(name)} in toolChoice is not among the tools in toolConfig.`);
    toolChoice = { name };
  }
  return { tools, toolChoice };
}

/** A toolResult's content as text: its text blocks, its JSON written out. */
function resultText(content: NonNullable<ContentBlockIn['toolResult']>['content']): string {
  return (content ?? []).map((c) => (typeof c.text === 'string' ? c.text : c.json !== undefined ? JSON.stringify(c.json) : '')).join('\n');
}

/** Validates a Converse request the way the service does and reduces it to the shared chat input. */
function readConversation(ctx: Ctx, modelId: string, streamed: boolean) {
  const model = runtimeModel(ctx, modelId);
  if (!model.outputModalities.includes('TEXT')) throw validation(NOT_A_CHAT_MODEL);

  const body = parseJson<ConverseBody>(ctx);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (messages.length === 0 || messages[0]?.role !== 'user') throw validation(MUST_START_WITH_USER);
  const { tools, toolChoice } = readToolConfig(model, body.toolConfig, streamed);
  const reasoning = readReasoning(model, body.additionalModelRequestFields, body.inferenceConfig ?? {});
  let reasoningBlocks = 0;
  const documents = new DocumentReader(model);

  const names = new Map<string, string>();
  let openToolUses: string[] = [];
  const turns: ChatTurn[] = messages.map((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant') {
      throw validation(
        `1 validation error detected: Value '${m.role}' at 'messages.${i + 1}.member.role' failed to satisfy constraint: ` +
          'Member must satisfy enum value set: [user, assistant]',
      );
    }
    if (i > 0 && messages[i - 1]?.role === m.role) throw validation(MUST_ALTERNATE);
    if (!Array.isArray(m.content) || m.content.length === 0) {
      throw validation(
        `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    }
    const texts: string[] = [];
    const toolResults: ToolResultIn[] = [];
    const toolUses: string[] = [];
    let images = 0;
    m.content.forEach((block, j) => {
      if (typeof block.text === 'string') {
        if (!block.text.trim())
          throw validation(
            `The text field in the ContentBlock object at messages.${i}.content.${j} is blank. Add text to the text field, and try again.`,
          );
        texts.push(block.text);
      } else if (block.image) {
        if (m.role !== 'user') throw validation(`messages.${i}.content.${j}: images are only allowed in user messages.`);
        if (!model.inputModalities.includes('IMAGE')) throw validation(NO_IMAGES);
        const format = str(block.image.format);
        const bytes = typeof block.image.source?.bytes === 'string' ? Buffer.from(block.image.source.bytes, 'base64') : Buffer.alloc(0);
        if (!['png', 'jpeg', 'gif', 'webp'].includes(format) || !isImage(format, bytes)) {
          throw validation(`The image at messages.${i}.content.${j} could not be processed: it is not a valid ${format || 'image'} image.`);
        }
        images++;
      } else if (block.document) {
        documents.read(block.document, m.role ?? '', i, j);
      } else if (block.toolUse) {
        if (!body.toolConfig) throw validation(TOOL_CONFIG_REQUIRED);
        const id = str(block.toolUse.toolUseId);
        toolUses.push(id);
        names.set(id, str(block.toolUse.name));
      } else if (block.reasoningContent) {
        if (m.role !== 'assistant') throw validation(`messages.${i}.content.${j}: reasoning content is only allowed in assistant messages.`);
        checkReasoningBlock(model, block.reasoningContent, `messages.${i}.content.${j}`);
        reasoningBlocks++;
      } else if (block.toolResult) {
        if (!body.toolConfig) throw validation(TOOL_CONFIG_REQUIRED);
        const id = str(block.toolResult.toolUseId);
        toolResults.push({ id, name: names.get(id), text: resultText(block.toolResult.content), isError: block.toolResult.status === 'error' });
      }
    });
    if (m.role === 'user') {
      if (toolResults.length > openToolUses.length) {
        throw validation(`The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`);
      }
      const missing = openToolUses.filter((id) => !toolResults.some((r) => r.id === id));
      if (missing.length > 0) throw validation(`Expected toolResult blocks at messages.${i}.content for the following Ids: ${missing.join(', ')}`);
    }
    if (m.role === 'assistant' && i === messages.length - 2) checkThinkingTurn(reasoning, m.content, i);
    openToolUses = m.role === 'assistant' ? toolUses : [];
    return { role: m.role, text: texts.join('\n'), images, toolResults };
  });
  const system = (body.system ?? []).map((block) => block.text ?? '').filter(Boolean);
  checkCachePoints(model, body);
  const serviceTier = tierOf(model, body.serviceTier);

  const maxTokens = body.inferenceConfig?.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw validation(
      `1 validation error detected: Value '${maxTokens}' at 'inferenceConfig.maxTokens' failed to satisfy constraint: ` +
        'Member must have value greater than or equal to 1',
    );
  }
  const result = emulateChat({
    model: model.modelId,
    system,
    turns,
    maxTokens,
    tools,
    toolChoice,
    ...(documents.count > 0 && { documents: { count: documents.count, tokens: documents.tokens } }),
  });
  // Reasoning sent back reached the model: it says how many blocks (a test's proof that they arrived intact).
  if (reasoningBlocks > 0 && result.toolCalls.length === 0) result.text += ` ${reasoningBlocks} reasoning block(s) received.`;
  const last = turns.at(-1);
  const thought = reasoningOf(model, reasoning, {
    lastUserText: turns.filter((t) => t.role === 'user' && t.text).at(-1)?.text ?? '',
    toolResultsLast: (last?.toolResults?.length ?? 0) > 0,
    prompt: [...system, ...turns.map((t) => t.text)].join('\n'),
  });
  const outputTokens = result.outputTokens + (thought?.tokens ?? 0);
  const usage = cacheCall(ctx.state, model, body as Parameters<typeof cacheCall>[2], result.inputTokens);
  return { ...result, reasoning: thought?.block, usage: { ...usage, outputTokens, totalTokens: result.inputTokens + outputTokens }, serviceTier };
}

/** Where a cachePoint may go and for how long, as the model takes them; anything else is refused as Bedrock refuses it. */
function checkCachePoints(model: FoundationModel, body: ConverseBody): void {
  const fields = {
    system: body.system ?? [],
    messages: (body.messages ?? []).flatMap((m) => m.content ?? []),
    tools: (body.toolConfig?.tools ?? []) as { cachePoint?: { ttl?: unknown } }[],
  };
  let count = 0;
  for (const [field, blocks] of Object.entries(fields) as [keyof typeof fields, { cachePoint?: { ttl?: unknown } }[]][]) {
    for (const block of blocks) {
      if (!block.cachePoint) continue;
      count++;
      if (!model.caching?.fields.includes(field))
        throw validation(
          `You invoked an unsupported model or your request did not allow prompt caching. See the documentation for more information.`,
        );
      const ttl = block.cachePoint.ttl ?? '5m';
      if (!model.caching.ttls.includes(ttl as '5m'))
        throw validation(`The model ${model.modelId} does not support the cache TTL ${JSON.stringify(ttl)}.`);
    }
  }
  if (count > 4) throw validation(`A maximum of 4 cache checkpoints is allowed per request. Found ${count}.`);
}

/** The tier a request asks for, where the model offers it. */
function tierOf(model: FoundationModel, tier: ConverseBody['serviceTier']): string {
  const type = tier?.type ?? 'default';
  if (!(model.serviceTiers ?? ['default']).includes(type as 'default')) {
    throw validation(`The service tier ${JSON.stringify(type)} is not supported for the model ${model.modelId}.`);
  }
  return type as string;
}

function modelError(): EmulatorError {
  return new EmulatorError(424, 'ModelErrorException', 'The system encountered an unexpected error during processing. Try your request again.', {
    extra: { originalStatusCode: 500 },
  });
}

const stopReason = (result: ChatResult) => (result.stop === 'length' ? 'max_tokens' : result.stop === 'tool_use' ? 'tool_use' : 'end_turn');
const toolUseId = (id: string) => `tooluse_${id}`;

async function converse(ctx: Ctx, modelId: string): Promise<Reply> {
  const result = readConversation(ctx, modelId, false);
  const latencyMs = await modelLatency(ctx.opts);
  if (ctx.fail) throw modelError();
  const content = [
    ...(result.reasoning ? [{ reasoningContent: result.reasoning }] : []),
    ...(result.text ? [{ text: result.text }] : []),
    ...result.toolCalls.map((c) => ({ toolUse: { toolUseId: toolUseId(c.id), name: c.name, input: c.input } })),
  ];
  return jsonReply({
    output: { message: { role: 'assistant', content } },
    stopReason: stopReason(result),
    usage: result.usage,
    metrics: { latencyMs },
    serviceTier: { type: result.serviceTier },
  });
}

async function converseStream(ctx: Ctx, modelId: string): Promise<Reply> {
  const result = readConversation(ctx, modelId, true);
  const latencyMs = await modelLatency(ctx.opts);
  if (ctx.fail) throw modelError();

  // Word-sized deltas, like the service, so consumers must concatenate rather than take one chunk.
  // A text block (index 0 when there is text), then one block per tool call: its start (id and name),
  // its input JSON in pieces, its stop.
  // Reasoning first (index 0 when the model reasons): its text in pieces, then its signature; a
  // redacted block comes whole.
  const reasoningBlocks = result.reasoning ? 1 : 0;
  const pieces = result.text ? (result.text.match(/\S+\s*/g) ?? [result.text]) : [];
  const textBlocks = pieces.length > 0 ? 1 : 0;
  const frames = [
    eventFrame('messageStart', { role: 'assistant' }),
    ...(result.reasoning ? reasoningFrames(result.reasoning) : []),
    ...pieces.map((text) => eventFrame('contentBlockDelta', { contentBlockIndex: reasoningBlocks, delta: { text } })),
    ...(textBlocks ? [eventFrame('contentBlockStop', { contentBlockIndex: reasoningBlocks })] : []),
    ...result.toolCalls.flatMap((call, i) => {
      const contentBlockIndex = reasoningBlocks + textBlocks + i;
      return [
        eventFrame('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: toolUseId(call.id), name: call.name } } }),
        ...piecesOf(JSON.stringify(call.input)).map((input) => eventFrame('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input } } })),
        eventFrame('contentBlockStop', { contentBlockIndex }),
      ];
    }),
    eventFrame('messageStop', { stopReason: stopReason(result) }),
    eventFrame('metadata', { usage: result.usage, metrics: { latencyMs }, serviceTier: { type: result.serviceTier } }),
  ];
  // What the service sends when the model fails after it started answering: an exception message.
  const failure = exceptionFrame('modelStreamErrorException', {
    message: 'The model encountered an error while generating the response stream.',
    originalStatusCode: 500,
  });
  return streamReply(ctx, 'application/vnd.amazon.eventstream', frames, failure);
}

/** The reasoning block's stream events, at content block 0. */
function reasoningFrames(block: NonNullable<ReturnType<typeof readConversation>['reasoning']>): Buffer[] {
  const delta = (reasoningContent: Record<string, string>) => eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent } });
  const stop = eventFrame('contentBlockStop', { contentBlockIndex: 0 });
  if ('redactedContent' in block) return [delta({ redactedContent: block.redactedContent }), stop];
  const { text, signature } = block.reasoningText;
  return [...(text.match(/\S+\s*/g) ?? [text]).map((piece) => delta({ text: piece })), ...(signature ? [delta({ signature })] : []), stop];
}

// ---------------------------------------------------------------- InvokeModel: the embedding models' own bodies

/** Bedrock's words for a body the model's schema refuses. */
const malformed = (detail: string) => validation(`Malformed input request: ${detail}, please reformat your input and try again.`);

function checkKeys(body: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw malformed(`#: extraneous key [${key}] is not permitted`);
}

/** Titan Text Embeddings v2: one text a call. */
function titanEmbedding(model: FoundationModel, body: Record<string, unknown>) {
  checkKeys(body, ['inputText', 'dimensions', 'normalize', 'embeddingTypes']);
  if (!('inputText' in body)) throw malformed('#: required key [inputText] not found');
  const text = body.inputText;
  if (typeof text !== 'string') throw malformed(`#/inputText: expected type: String, found: ${typeof text}`);
  if (text.length === 0) throw malformed('#/inputText: expected minLength: 1, actual: 0');
  const dimensions = body.dimensions ?? 1024;
  if (!model.embedding?.dimensions.includes(dimensions as number))
    throw malformed(`#/dimensions: ${JSON.stringify(dimensions)} is not a valid enum value`);
  const normalize = body.normalize ?? true;
  if (typeof normalize !== 'boolean') throw malformed('#/normalize: expected type: Boolean');
  const embedding = embeddingOf(text, dimensions as number, normalize);
  const tokens = tokensFor(text.length);
  const types = Array.isArray(body.embeddingTypes) ? (body.embeddingTypes as string[]) : undefined;
  return {
    tokens,
    answer: { embedding, ...(types?.includes('float') ? { embeddingsByType: { float: embedding } } : {}), inputTextTokenCount: tokens },
  };
}

const COHERE_INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];

/** Cohere Embed v3 and v4: up to 96 texts a call, with what they are for; v4 also picks the vector size. */
function cohereEmbedding(ctx: Ctx, model: FoundationModel, body: Record<string, unknown>, family: 'cohere-v3' | 'cohere-v4') {
  const v4Keys = family === 'cohere-v4' ? ['output_dimension', 'max_tokens', 'inputs'] : [];
  checkKeys(body, ['texts', 'images', 'input_type', 'truncate', 'embedding_types', ...v4Keys]);
  if (!('input_type' in body)) throw malformed('#: required key [input_type] not found');
  if (!COHERE_INPUT_TYPES.includes(body.input_type as string))
    throw malformed(`#/input_type: ${JSON.stringify(body.input_type)} is not a valid enum value`);
  const texts = body.texts;
  if (!Array.isArray(texts)) throw malformed('#: required key [texts] not found');
  if (texts.length > 96) throw malformed(`#/texts: expected maximum item count: 96, found: ${texts.length}`);
  if (texts.some((t) => typeof t !== 'string')) throw malformed('#/texts: expected type: String');
  if (body.truncate !== undefined && !['NONE', 'START', 'END'].includes(body.truncate as string))
    throw malformed(`#/truncate: ${JSON.stringify(body.truncate)} is not a valid enum value`);
  const dimensions = (body.output_dimension ?? model.embedding?.dimensions[0] ?? 1024) as number;
  if (!model.embedding?.dimensions.includes(dimensions))
    throw malformed(`#/output_dimension: ${JSON.stringify(dimensions)} is not a valid enum value`);
  // Queries and documents are embedded differently, as Cohere's models do.
  const embeddings = (texts as string[]).map((t) => embeddingOf(`${String(body.input_type)}|${t}`, dimensions));
  const byType = Array.isArray(body.embedding_types);
  return {
    tokens: (texts as string[]).reduce((n, t) => n + tokensFor(t.length), 0),
    answer: {
      id: `emb-${ctx.state.nextId++}`,
      texts,
      // Asked for by type, the vectors come keyed by type; otherwise as floats directly.
      embeddings: byType ? { float: embeddings } : embeddings,
      response_type: byType ? 'embeddings_by_type' : 'embeddings_floats',
    },
  };
}

async function invokeModel(ctx: Ctx, modelId: string): Promise<Reply> {
  const model = runtimeModel(ctx, modelId);
  if (!model.embedding) throw validation('The emulator answers InvokeModel for embedding models only; use Converse for chat models.');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(ctx.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw malformed('#: expected type: JSONObject');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw malformed('#: expected type: JSONObject');
  const { answer, tokens } =
    model.embedding.body === 'titan-v2' ? titanEmbedding(model, body) : cohereEmbedding(ctx, model, body, model.embedding.body);
  const latencyMs = await modelLatency(ctx.opts);
  if (ctx.fail) throw modelError();
  // The token count and latency come as headers for every model, whatever its body says.
  return {
    ...jsonReply(answer),
    headers: {
      'content-type': 'application/json',
      'x-amzn-bedrock-input-token-count': String(tokens),
      'x-amzn-bedrock-invocation-latency': String(latencyMs),
    },
  };
}

// ---------------------------------------------------------------- routing

/**
 * Fault-matching keys of a runtime call: the id it was sent and the foundation model behind it, so a
 * fault on a model's base id (`{ model: "anthropic.claude-…" }`) hits it however it is invoked (base id,
 * system or application inference profile). An id that resolves to nothing matches by itself only.
 */
function runtimeKeys(ctx: Ctx, modelId: string): string[] {
  try {
    const base = resolveRuntimeTarget(ctx, modelId).model.modelId;
    return base === modelId ? [modelId] : [modelId, base];
  } catch {
    return [modelId];
  }
}

export const bedrock: ServiceDef = {
  name: 'bedrock',
  errorStyle: {
    kind: 'restJson',
    messageKey: 'message',
    errorTypeSuffix: ':http://internal.amazon.com/coral/com.amazon.bedrock/',
  },
  internalError: () => new EmulatorError(500, 'InternalServerException', 'An internal server error occurred. Retry your request.'),
  throttlingError: () => new EmulatorError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
  contextError: () => new EmulatorError(400, 'ValidationException', 'Input is too long for requested model.'),
  route(ctx): Route | undefined {
    const segments = ctx.path.split('/').filter(Boolean).map(decodeURIComponent);
    if (ctx.method === 'GET' && segments[0] === 'foundation-models') {
      if (segments.length === 1) return { op: 'ListFoundationModels', keys: [], run: () => listFoundationModels(ctx) };
      const id = segments.slice(1).join('/');
      return { op: 'GetFoundationModel', keys: [id], run: () => getFoundationModel(ctx, id) };
    }
    if (segments[0] === 'inference-profiles') {
      const id = segments.slice(1).join('/');
      if (ctx.method === 'GET' && !id) return { op: 'ListInferenceProfiles', keys: [], run: () => listInferenceProfiles(ctx) };
      if (ctx.method === 'POST' && !id) return { op: 'CreateInferenceProfile', keys: [], run: () => createInferenceProfile(ctx) };
      if (ctx.method === 'GET') return { op: 'GetInferenceProfile', keys: [id], run: () => getInferenceProfile(ctx, id) };
      if (ctx.method === 'DELETE') return { op: 'DeleteInferenceProfile', keys: [id], run: () => deleteInferenceProfile(ctx, id) };
    }
    if (ctx.method === 'POST' && segments.length === 1) {
      if (segments[0] === 'tagResource') return { op: 'TagResource', keys: [], run: () => tagResource(ctx) };
      if (segments[0] === 'untagResource') return { op: 'UntagResource', keys: [], run: () => untagResource(ctx) };
      if (segments[0] === 'listTagsForResource') return { op: 'ListTagsForResource', keys: [], run: () => listTagsForResource(ctx) };
    }
    if (ctx.method === 'POST' && segments[0] === 'model' && segments.length >= 3) {
      const action = segments.at(-1);
      const modelId = segments.slice(1, -1).join('/');
      const keys = runtimeKeys(ctx, modelId);
      if (action === 'converse') return { op: 'Converse', keys, canFail: true, run: () => converse(ctx, modelId) };
      if (action === 'converse-stream') {
        return { op: 'ConverseStream', keys, canFail: true, run: () => converseStream(ctx, modelId) };
      }
      if (action === 'invoke') return { op: 'InvokeModel', keys, canFail: true, run: () => invokeModel(ctx, modelId) };
      if (action === 'count-tokens') return { op: 'CountTokens', keys, run: () => countTokens(ctx, modelId) };
    }
    return undefined;
  },
};
