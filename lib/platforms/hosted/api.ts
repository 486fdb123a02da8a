/**
 * The hosted platform: an OpenAI-compatible HTTP API (NVIDIA's API catalogue by default) reached
 * with plain fetch and a bearer key. No SDK, so the retry and timeout policy the AWS clients get
 * from the SDK is spelled out here: every attempt has its own AbortSignal timeout, and 429, 5xx,
 * timeouts and connection failures are retried with exponential backoff and jitter (honouring a
 * short Retry-After), up to UPSTREAM_MAX_ATTEMPTS attempts.
 */
import { config } from '../../../core/config';
import { secretReader } from '../../aws/parameter-store';
import { fromStatus, timedOut, unreachable, unreadable } from '../errors';
import { UpstreamError } from '../../errors';
import { openAiStreamEvents } from '../sse';
import { hostedEntry } from './models';

export { hostedEntry, hostedModelName, hostedTags, hostedTask } from './models';
import { openAiChatBody, readOpenAiCompletion } from '../openai';
import {
  type ChatReply,
  type ChatRequest,
  type ChatStreamEvent,
  type EmbeddingReply,
  type EmbeddingRequest,
  type HostedModelEntry,
  type HostedPlatform,
  type PlatformModelInfo,
} from '../types';

const PLATFORM = 'hosted' as const;
const MAX_BACKOFF_MS = 2000;

export interface HostedOptions {
  baseUrl: string;
  /** The key itself, or (deployed stages) how to read it: from SSM, once per container. */
  apiKey?: string | (() => Promise<string>);
  timeoutMs: number;
  maxAttempts: number;
}

function hostedOptionsFromConfig(): HostedOptions {
  return {
    baseUrl: config.hosted.baseUrl,
    apiKey: config.hosted.apiKey && secretReader(config.hosted.apiKey, 'the hosted platform API key'),
    timeoutMs: config.upstream.timeoutMs,
    maxAttempts: config.upstream.maxAttempts,
  };
}

/** Publisher of a model: the id's namespace ("meta"), or the `owned_by` the API reports. */
function publisher(id: string, ownedBy?: string): string {
  return id.includes('/') ? id.slice(0, id.indexOf('/')) : ownedBy || 'hosted';
}

// ---------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------

/** How one request is sent: the caller's signal, and whether a 429 fails at once (`send`). */
interface SendOptions {
  signal?: AbortSignal;
  failFastOnThrottling?: boolean;
}

interface Answer {
  status: number;
  body: unknown;
}

interface OpenAiModelList {
  data?: { id?: unknown; owned_by?: unknown }[];
}

interface OpenAiEmbeddings {
  model?: unknown;
  data?: { index?: unknown; embedding?: unknown }[];
  usage?: { prompt_tokens?: unknown };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function backoff(attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter !== null ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(MAX_BACKOFF_MS, seconds * 1000);
  const ceiling = Math.min(MAX_BACKOFF_MS, 100 * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** The message of a problem document ({title, detail}) or an OpenAI error ({error: {message}}). */
function errorText(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { detail?: unknown; title?: unknown; error?: { message?: unknown } | string; message?: unknown };
    const candidates = [parsed.detail, typeof parsed.error === 'object' ? parsed.error?.message : parsed.error, parsed.message, parsed.title];
    const text = candidates.find((c) => typeof c === 'string' && c.trim());
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

export class OpenAiHostedPlatform implements HostedPlatform {
  readonly configured: boolean;
  readonly baseUrl: string;
  private readonly options: HostedOptions;

  constructor(options: HostedOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.configured = Boolean(options.apiKey);
  }

  /** The key, read from SSM on the first call of the container where that is where it is kept. */
  private async apiKey(): Promise<string | undefined> {
    const { apiKey } = this.options;
    if (typeof apiKey !== 'function') return apiKey;
    try {
      return await apiKey();
    } catch (err) {
      throw new UpstreamError(PLATFORM, 'The hosted API key could not be read', 'failed', (err as Error).message);
    }
  }

  /** One API call with timeouts and bounded retries; a 2xx body that is not JSON is an unreadable answer. */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown, how: SendOptions = {}): Promise<Answer> {
    const { response, text } = await this.send(method, path, body, async (r) => ({ response: r, text: await r.text() }), how);
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      throw unreadable(PLATFORM, response.status);
    }
  }

  /**
   * Sends a request with bounded retries (429, 5xx, timeouts, connection failures) and hands a 2xx
   * response to `read`, inside the attempt's timeout: reading the body is part of the attempt. A
   * non-2xx answer becomes the UpstreamError its status says. `signal` (the caller giving up) aborts
   * every attempt and is never retried. A 429 is not retried for a call that another target stands
   * behind (`failFastOnThrottling`: the route falls over instead, as the AWS clients' twin does, ../clients.ts).
   */
  private async send<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    read: (response: Response, attempt: AbortController) => Promise<T>,
    { signal, failFastOnThrottling }: SendOptions = {},
  ): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const apiKey = await this.apiKey();
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const attempts = Math.max(1, this.options.maxAttempts);
    // Made only when an attempt fails: an error's stack trace costs a call that succeeds for nothing.
    let failure: UpstreamError | undefined;

    for (let attempt = 1; attempt <= attempts; attempt++) {
      // One controller per attempt, covering the headers and whatever `read` reads of the body.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new DOMException('timed out', 'TimeoutError')), this.options.timeoutMs);
      const giveUp = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', giveUp, { once: true });
      let response: Response;
      let errorBody: string;
      try {
        response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
        });
        if (response.ok) return await read(response, controller);
        errorBody = await response.text();
      } catch (err) {
        if (err instanceof UpstreamError) throw err;
        if (signal?.aborted) throw err;
        const name = (err as { name?: string }).name;
        failure = name === 'TimeoutError' || name === 'AbortError' || controller.signal.aborted ? timedOut(PLATFORM) : unreachable(PLATFORM);
        if (attempt < attempts) await sleep(backoff(attempt, null));
        continue;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
      }

      failure = fromStatus(PLATFORM, response.status, errorText(errorBody));
      const retryable = response.status === 429 ? !failFastOnThrottling : response.status >= 500;
      if (!retryable) throw failure;
      if (attempt < attempts) await sleep(backoff(attempt, response.headers.get('retry-after')));
    }
    throw failure ?? unreachable(PLATFORM);
  }

  async listModels(): Promise<{ models: HostedModelEntry[]; raw: unknown }> {
    const { status, body } = await this.call('GET', '/models');
    const data = (body as OpenAiModelList | null)?.data;
    if (!Array.isArray(data)) throw unreadable(PLATFORM, status);
    const models = data
      .map((m) => m?.id)
      .filter((id): id is string => typeof id === 'string' && id.length > 0)
      .map(hostedEntry);
    return { models, raw: body };
  }

  async getModel(modelId: string): Promise<PlatformModelInfo | undefined> {
    const { models, raw } = await this.listModels();
    const entry = models.find((m) => m.id === modelId);
    if (!entry) return undefined;
    const ownedBy = (raw as OpenAiModelList).data?.find((m) => m.id === modelId)?.owned_by;
    return this.modelInfo(entry, typeof ownedBy === 'string' ? ownedBy : undefined);
  }

  /** Model detail (docs/openapi.yaml ModelInfo) of a catalogue entry; the API itself has no detail beyond the id. */
  modelInfo(entry: HostedModelEntry, ownedBy?: string): PlatformModelInfo {
    const embedding = entry.task === 'embedding';
    return {
      modelId: entry.id,
      modelName: entry.name,
      providerName: publisher(entry.id, ownedBy),
      // The platform has no ARNs; the model's own URL on the API identifies it instead.
      modelArn: `${this.baseUrl}/models/${entry.id}`,
      inputModalities: ['TEXT'],
      outputModalities: [embedding ? 'EMBEDDING' : 'TEXT'],
      responseStreamingSupported: !embedding,
      customizationsSupported: embedding ? [] : ['SYSTEM_PROMPT'],
      inferenceTypesSupported: ['ON_DEMAND'],
      modelLifecycle: { status: 'ACTIVE' },
    };
  }

  async checkConnectivity(modelId: string): Promise<{ endpoint: string }> {
    const path = `/models/${modelId.split('/').map(encodeURIComponent).join('/')}`;
    try {
      await this.call('GET', path);
    } catch (err) {
      // Say which model the platform does not know rather than only "rejected (status 404)".
      if (err instanceof UpstreamError && err.upstreamStatus === 404) {
        throw new UpstreamError(PLATFORM, `The hosted platform does not know the model "${modelId}" (status 404)`, 'failed', err.details, 404);
      }
      throw err;
    }
    return { endpoint: `${this.baseUrl}/chat/completions` };
  }

  private requireKey(): void {
    if (!this.configured) {
      throw new UpstreamError(PLATFORM, 'The hosted platform is not configured: HOSTED_API_KEY is not set', 'failed');
    }
  }

  /** OpenAI's chat completions body: messages, sampling, tools and response_format pass through as OpenAI defines them. */
  private completionBody(request: ChatRequest, stream: boolean) {
    this.requireKey();
    return {
      model: request.target,
      ...openAiChatBody(request, { cacheControl: true }),
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    };
  }

  /**
   * `stream: true` with the usage chunk asked for. Retries apply until the API answers 2xx; after
   * that the events are read as they come, with the timeout applied to each wait for the next chunk.
   */
  async *chatStream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    const payload = this.completionBody(request, true);
    const started = Date.now();
    const { response, controller } = await this.send('POST', '/chat/completions', payload, async (r, c) => ({ response: r, controller: c }), {
      signal,
      failFastOnThrottling: request.failFastOnThrottling,
    });
    const giveUp = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', giveUp, { once: true });
    try {
      const events = openAiStreamEvents(idleTimed(response, controller, this.options.timeoutMs), {
        failed: streamFailed,
        unreadable: () => unreadable(PLATFORM, response.status),
      });
      for await (const event of events) {
        yield event.kind === 'usage' ? { ...event, latencyMs: Date.now() - started, modelId: event.modelId ?? request.target } : event;
      }
    } finally {
      signal?.removeEventListener('abort', giveUp);
    }
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const payload = this.completionBody(request, false);
    const started = Date.now();
    const { status, body } = await this.call('POST', '/chat/completions', payload, request);
    const answer = readOpenAiCompletion(body);
    if (!answer) throw unreadable(PLATFORM, status);
    return {
      content: answer.content,
      ...(answer.toolCalls.length > 0 ? { toolCalls: answer.toolCalls } : {}),
      tokensIn: answer.usage?.prompt_tokens ?? 0,
      tokensOut: answer.usage?.completion_tokens ?? 0,
      latencyMs: Date.now() - started,
      modelId: answer.model ?? request.target,
      finishReason: answer.finishReason,
    };
  }

  /**
   * POST /embeddings, OpenAI's shape, every text in one call (the API takes up to 2048). The vectors
   * are asked for as floats whatever the caller's encoding (the gateway encodes them itself), and
   * `dimensions` passes through for the API to accept or refuse.
   */
  async embed(request: EmbeddingRequest): Promise<EmbeddingReply> {
    this.requireKey();
    const started = Date.now();
    const payload = {
      model: request.target,
      input: request.inputs,
      encoding_format: 'float',
      ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
    };
    const { status, body } = await this.call('POST', '/embeddings', payload, request);
    const answer = body as OpenAiEmbeddings | null;
    const data = answer?.data;
    if (!Array.isArray(data) || data.length !== request.inputs.length) throw unreadable(PLATFORM, status);
    const vectors = new Array<number[]>(data.length);
    for (const [position, item] of data.entries()) {
      const index = typeof item?.index === 'number' ? item.index : position;
      if (!Array.isArray(item?.embedding) || index < 0 || index >= vectors.length) throw unreadable(PLATFORM, status);
      vectors[index] = item.embedding as number[];
    }
    if (vectors.some((v) => v === undefined)) throw unreadable(PLATFORM, status);
    const tokens = answer?.usage?.prompt_tokens;
    return {
      vectors,
      tokensIn: typeof tokens === 'number' ? tokens : estimateTokens(request.inputs),
      latencyMs: Date.now() - started,
      modelId: typeof answer?.model === 'string' ? answer.model : request.target,
    };
  }
}

/** Without the platform's count: about 4 bytes a token, as every estimate here. */
const estimateTokens = (texts: string[]) => texts.reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0);

/** A failure after the API began answering: generation broke off (an error event, or a cut connection). */
const streamFailed = (detail?: string) => new UpstreamError(PLATFORM, 'The hosted platform failed while answering', 'failed', detail);

/**
 * A response body's bytes, failing with a timeout when none arrive for `idleMs` (the per-attempt
 * timeout, applied between chunks as the AWS clients apply theirs to an idle stream).
 */
async function* idleTimed(response: Response, controller: AbortController, idleMs: number): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      timer = setTimeout(() => controller.abort(new DOMException('idle', 'TimeoutError')), idleMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        throw controller.signal.reason instanceof DOMException && controller.signal.reason.message === 'idle' ? timedOut(PLATFORM) : streamFailed();
      } finally {
        clearTimeout(timer);
      }
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    // An early return (the caller stopped reading) cancels the body: the connection closes.
    await reader.cancel().catch(() => undefined);
  }
}

export function createHostedPlatform(overrides: Partial<HostedOptions> = {}): OpenAiHostedPlatform {
  return new OpenAiHostedPlatform({ ...hostedOptionsFromConfig(), ...overrides });
}

/** Built once per cold start. */
export const hosted: HostedPlatform = /* @__PURE__ */ createHostedPlatform();
