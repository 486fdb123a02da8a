/**
 * The hosted OpenAI-compatible API (NVIDIA API catalogue flavour) under /v1. Errors are RFC 7807
 * problem documents, as integrate.api.nvidia.com sends them. As there, the model list is public and
 * only inference needs the key: no key is 401, a wrong key is 403.
 */
import { HOSTED_MODELS, HOSTED_MODEL_CREATED, type HostedModel } from './catalogue';
import { emulateChat, fromOpenAiMessages, modelLatency, openAiChunks, openAiCompletion, openAiStreamError, type OpenAiMessage } from './chat';
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

interface CompletionBody {
  model?: string;
  messages?: OpenAiMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

async function chatCompletions(ctx: Ctx): Promise<Reply> {
  authorise(ctx);
  const body = parseJson<CompletionBody>(ctx);
  const model = findModel(String(body.model ?? ''));
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw problem(422, 'Validation failed', 'body -> messages\n  field required', 'urn:kaizen:problem-details:validation-failed');
  }
  const { system, turns } = fromOpenAiMessages(body.messages);
  const result = emulateChat({ model: model.id, system, turns, maxTokens: body.max_completion_tokens ?? body.max_tokens });
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

export const hosted: ServiceDef = {
  name: 'hosted',
  errorStyle: { kind: 'problem' },
  internalError: () => problem(500, 'Internal Server Error', 'An unexpected error occurred while processing the request'),
  throttlingError: () => problem(429, 'Too Many Requests', 'Rate limit exceeded, please retry after some time'),
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
      let model = '';
      try {
        model = String((JSON.parse(ctx.body.toString('utf8')) as CompletionBody).model ?? '');
      } catch {
        // The handler reports the unreadable body; fault matching just has no model to go on.
      }
      return { op: 'chat.completions', keys: [model], run: () => chatCompletions(ctx) };
    }
    return undefined;
  },
};
