/**
 * The hosted OpenAI-compatible API (NVIDIA API catalogue flavour) under /v1. Errors are RFC 7807
 * problem documents, as integrate.api.nvidia.com sends them. As there, the model list is public and
 * only inference needs the key: no key is 401, a wrong key is 403. Chat completions take OpenAI's
 * tools, tool_choice, parallel_tool_calls, response_format and image_url parts (for the vision model);
 * POST /v1/embeddings answers the embedding model.
 */
import { HOSTED_MODELS, HOSTED_MODEL_CREATED, type HostedModel } from './catalogue';
import {
  embeddingOf,
  emulateChat,
  fromOpenAiBody,
  modelLatency,
  openAiChunks,
  openAiCompletion,
  openAiStreamError,
  str,
  tokensFor,
  type OpenAiChatBody,
} from './chat';
import { EmulatorError, jsonReply, parseJson, streamReply, type Ctx, type Reply, type Route, type ServiceDef } from './shared';

const problem = (status: number, title: string, detail: string, type = 'about:blank') =>
  new EmulatorError(status, title, detail, { title, problemType: type });

function modelObject(m: HostedModel) {
  return {
    id: m.id,
    object: 'model',
    created: HOSTED_MODEL_CREATED,
    owned_by: m.ownedBy,
    root: m.id,
    parent: null,
  };
}

function authorise(ctx: Ctx): void {
  const header = ctx.headers.authorization;
  if (!header) throw problem(401, 'Unauthorized', 'Header of type `authorization` was missing');
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) throw problem(401, 'Unauthorized', 'Bearer token is malformed');
  if (match[1] !== ctx.opts.hostedApiKey) throw problem(403, 'Forbidden', 'Authorization failed');
}

function findModel(id: string): HostedModel {
  const model = HOSTED_MODELS.find((m) => m.id === id);
  if (!model) throw problem(404, 'Not Found', `Model ${id} not found`);
  return model;
}

const invalid = (message: string) => problem(400, 'Bad Request', message);

async function chatCompletions(ctx: Ctx): Promise<Reply> {
  authorise(ctx);
  const body = parseJson<OpenAiChatBody>(ctx);
  const model = findModel(str(body.model));
  if (model.embeddingDimensions) throw invalid(`Model ${model.id} is an embedding model: use /v1/embeddings`);
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw problem(422, 'Validation failed', 'body -> messages\n  field required', 'urn:kaizen:problem-details:validation-failed');
  }
  const result = emulateChat(fromOpenAiBody(body, { id: model.id, vision: model.vision === true }, invalid));
  await modelLatency(ctx.opts);

  const id = `chatcmpl-${ctx.state.nextId++}`;
  const created = Math.floor(Date.now() / 1000);
  if (!body.stream) return jsonReply(openAiCompletion(id, model.id, result, created));

  // Server-sent events, one chunk per word, closed by [DONE] as OpenAI clients expect.
  const events = openAiChunks(id, model.id, result, created, body.stream_options?.include_usage === true);
  return streamReply(
    ctx,
    'text/event-stream',
    events.map((e) => Buffer.from(e)),
    Buffer.from(openAiStreamError('Inference failed while generating the response')),
  );
}

interface EmbeddingsBody {
  model?: unknown;
  input?: unknown;
  encoding_format?: unknown;
  dimensions?: unknown;
}

/** POST /v1/embeddings: OpenAI's shape; the vectors as floats, or as base64 little-endian float32 when asked. */
async function embeddings(ctx: Ctx): Promise<Reply> {
  authorise(ctx);
  const body = parseJson<EmbeddingsBody>(ctx);
  const model = findModel(str(body.model));
  if (!model.embeddingDimensions) throw invalid(`Model ${model.id} is not an embedding model`);
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((t) => typeof t !== 'string' || t.length === 0)) {
    throw problem(
      422,
      'Validation failed',
      'body -> input\n  must be a non-empty string or array of non-empty strings',
      'urn:kaizen:problem-details:validation-failed',
    );
  }
  if (inputs.length > 2048) throw invalid('input may hold at most 2048 texts');
  if (body.dimensions !== undefined) throw invalid(`Model ${model.id} does not support the dimensions parameter`);
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') throw invalid('encoding_format must be float or base64');
  await modelLatency(ctx.opts);
  const tokens = (inputs as string[]).reduce((n, t) => n + tokensFor(t.length), 0);
  const dimensions = model.embeddingDimensions;
  return jsonReply({
    object: 'list',
    data: (inputs as string[]).map((text, index) => {
      const vector = embeddingOf(text, dimensions);
      return {
        object: 'embedding',
        index,
        embedding: format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      };
    }),
    model: model.id,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** The model a POST names, for fault matching (an unreadable body has none; the handler reports it). */
function modelOf(ctx: Ctx): string {
  try {
    return str((JSON.parse(ctx.body.toString('utf8')) as { model?: unknown }).model);
  } catch {
    return '';
  }
}

export const hosted: ServiceDef = {
  name: 'hosted',
  errorStyle: { kind: 'problem' },
  internalError: () => problem(500, 'Internal Server Error', 'An unexpected error occurred while processing the request'),
  throttlingError: () => problem(429, 'Too Many Requests', 'Rate limit exceeded, please retry after some time'),
  contextError: () => problem(400, 'Bad Request', "This model's maximum context length is 8192 tokens; the request asks for more"),
  route(ctx): Route | undefined {
    if (ctx.method === 'GET' && ctx.path === '/v1/models') {
      return { op: 'models.list', keys: [], run: async () => jsonReply({ object: 'list', data: HOSTED_MODELS.map(modelObject) }) };
    }
    if (ctx.method === 'GET' && ctx.path.startsWith('/v1/models/')) {
      // Catalogue ids contain a slash ("meta/llama-3.1-8b-instruct"), so the id is the whole rest.
      const id = decodeURIComponent(ctx.path.slice('/v1/models/'.length));
      return { op: 'models.retrieve', keys: [id], run: async () => jsonReply(modelObject(findModel(id))) };
    }
    if (ctx.method === 'POST' && ctx.path === '/v1/chat/completions') {
      return { op: 'chat.completions', keys: [modelOf(ctx)], run: () => chatCompletions(ctx) };
    }
    if (ctx.method === 'POST' && ctx.path === '/v1/embeddings') {
      return { op: 'embeddings', keys: [modelOf(ctx)], run: () => embeddings(ctx) };
    }
    return undefined;
  },
};
