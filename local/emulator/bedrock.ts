/**
 * Amazon Bedrock, control plane and runtime (both restJson1, both signed as "bedrock"):
 * ListFoundationModels, GetFoundationModel, Converse and ConverseStream.
 */
import { FOUNDATION_MODELS, type FoundationModel } from './catalogue';
import { emulateChat, modelLatency, type ChatTurn } from './chat';
import { eventFrame, exceptionFrame } from './eventstream';
import { EmulatorError, jsonReply, parseJson, streamReply, type Ctx, type Reply, type Route, type ServiceDef } from './shared';

const MODEL_NOT_FOUND = 'Could not resolve the foundation model from the provided model identifier.';
const MUST_START_WITH_USER = 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
const MUST_ALTERNATE =
  'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
const NOT_A_CHAT_MODEL = "This action doesn't support the model that you provided. Try again with a supported text or chat model.";

const validation = (message: string) => new EmulatorError(400, 'ValidationException', message);

function modelArn(region: string, modelId: string): string {
  return `arn:aws:bedrock:${region}::foundation-model/${modelId}`;
}

/** Accepts a model id or a foundation-model ARN, as the services do. */
function findModel(identifier: string): FoundationModel | undefined {
  const id = identifier.replace(/^arn:aws[a-z-]*:bedrock:[a-z0-9-]*::foundation-model\//, '');
  return FOUNDATION_MODELS.find((m) => m.modelId === id);
}

function summary(region: string, m: FoundationModel) {
  return {
    modelArn: modelArn(region, m.modelId),
    modelId: m.modelId,
    modelName: m.modelName,
    providerName: m.providerName,
    inputModalities: m.inputModalities,
    outputModalities: m.outputModalities,
    responseStreamingSupported: m.responseStreamingSupported,
    customizationsSupported: m.customizationsSupported,
    inferenceTypesSupported: m.inferenceTypesSupported,
    modelLifecycle: { status: 'ACTIVE' },
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
  const model = findModel(identifier);
  if (!model) throw new EmulatorError(404, 'ResourceNotFoundException', MODEL_NOT_FOUND);
  return jsonReply({ modelDetails: summary(ctx.opts.region, model) });
}

interface ConverseBody {
  messages?: Array<{ role?: string; content?: Array<{ text?: string }> }>;
  system?: Array<{ text?: string }>;
  inferenceConfig?: { maxTokens?: number };
}

/** Validates a Converse request the way the service does and reduces it to the shared chat input. */
function readConversation(ctx: Ctx, modelId: string) {
  const model = findModel(modelId);
  if (!model) throw new EmulatorError(404, 'ResourceNotFoundException', MODEL_NOT_FOUND);
  if (!model.outputModalities.includes('TEXT')) throw validation(NOT_A_CHAT_MODEL);

  const body = parseJson<ConverseBody>(ctx);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (messages.length === 0 || messages[0]?.role !== 'user') throw validation(MUST_START_WITH_USER);

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
    const text = m.content
      .map((block) => (typeof block.text === 'string' ? block.text : ''))
      .filter(Boolean)
      .join('\n');
    return { role: m.role, text };
  });
  const system = (body.system ?? []).map((block) => block.text ?? '').filter(Boolean);

  const maxTokens = body.inferenceConfig?.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw validation(
      `1 validation error detected: Value '${maxTokens}' at 'inferenceConfig.maxTokens' failed to satisfy constraint: ` +
        'Member must have value greater than or equal to 1',
    );
  }
  return emulateChat({ model: model.modelId, system, turns, maxTokens });
}

function modelError(): EmulatorError {
  return new EmulatorError(424, 'ModelErrorException', 'The system encountered an unexpected error during processing. Try your request again.', {
    extra: { originalStatusCode: 500 },
  });
}

async function converse(ctx: Ctx, modelId: string): Promise<Reply> {
  const result = readConversation(ctx, modelId);
  const latencyMs = await modelLatency(ctx.opts);
  if (ctx.fail) throw modelError();
  return jsonReply({
    output: { message: { role: 'assistant', content: [{ text: result.text }] } },
    stopReason: result.stop === 'length' ? 'max_tokens' : 'end_turn',
    usage: {
      inputTokens: result.inputTokens,
      outputTokens: result.outputTokens,
      totalTokens: result.inputTokens + result.outputTokens,
    },
    metrics: { latencyMs },
  });
}

async function converseStream(ctx: Ctx, modelId: string): Promise<Reply> {
  const result = readConversation(ctx, modelId);
  const latencyMs = await modelLatency(ctx.opts);
  if (ctx.fail) throw modelError();

  // Word-sized deltas, like the service, so consumers must concatenate rather than take one chunk.
  const pieces = result.text.match(/\S+\s*/g) ?? [result.text];
  const frames = [
    eventFrame('messageStart', { role: 'assistant' }),
    ...pieces.map((text) => eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
    eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
    eventFrame('messageStop', { stopReason: result.stop === 'length' ? 'max_tokens' : 'end_turn' }),
    eventFrame('metadata', {
      usage: {
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        totalTokens: result.inputTokens + result.outputTokens,
      },
      metrics: { latencyMs },
    }),
  ];
  // What the service sends when the model fails after it started answering: an exception message.
  const failure = exceptionFrame('modelStreamErrorException', {
    message: 'The model encountered an error while generating the response stream.',
    originalStatusCode: 500,
  });
  return streamReply(ctx, 'application/vnd.amazon.eventstream', frames, failure);
}

// ---------------------------------------------------------------- routing

export const bedrock: ServiceDef = {
  name: 'bedrock',
  errorStyle: {
    kind: 'restJson',
    messageKey: 'message',
    errorTypeSuffix: ':http://internal.amazon.com/coral/com.amazon.bedrock/',
  },
  internalError: () => new EmulatorError(500, 'InternalServerException', 'An internal server error occurred. Retry your request.'),
  throttlingError: () => new EmulatorError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
  route(ctx): Route | undefined {
    const segments = ctx.path.split('/').filter(Boolean).map(decodeURIComponent);
    if (ctx.method === 'GET' && segments[0] === 'foundation-models') {
      if (segments.length === 1) return { op: 'ListFoundationModels', keys: [], run: () => listFoundationModels(ctx) };
      const id = segments.slice(1).join('/');
      return { op: 'GetFoundationModel', keys: [id], run: () => getFoundationModel(ctx, id) };
    }
    if (ctx.method === 'POST' && segments[0] === 'model' && segments.length >= 3) {
      const action = segments.at(-1);
      const modelId = segments.slice(1, -1).join('/');
      if (action === 'converse') return { op: 'Converse', keys: [modelId], canFail: true, run: () => converse(ctx, modelId) };
      if (action === 'converse-stream') {
        return { op: 'ConverseStream', keys: [modelId], canFail: true, run: () => converseStream(ctx, modelId) };
      }
    }
    return undefined;
  },
};
