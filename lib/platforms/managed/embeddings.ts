/**
 * Embeddings on the managed platform: Bedrock runtime InvokeModel with each model family's own body
 * (Converse has no embedding models). Its own module and client, so that only the embeddings functions
 * bundle it.
 *
 * - Titan Text Embeddings v2 (`amazon.titan-embed-text-v2:0`): one text a call, `{inputText,
 *   dimensions (256, 512, 1024), normalize}`, answers `{embedding, inputTextTokenCount}`; the texts of a
 *   request are sent in parallel, a few at a time. Titan v1 takes `inputText` alone (1536 numbers).
 * - Cohere Embed v3 (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`): up to 96 texts a call,
 *   `{texts, input_type: search_document | search_query}`, answers `{embeddings}` (1024 numbers each).
 *   Bedrock reports the tokens in the `x-amzn-bedrock-input-token-count` header rather than Cohere's
 *   `meta`; either is read, else the count is estimated. Cohere Embed v4 takes `output_dimension`.
 */
import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { mapLimit } from '../../concurrency';
import { BadRequest } from '../../errors';
import { PlatformClient, http2ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { guard, unreadable } from '../errors';
import type { EmbeddingCapable, EmbeddingReply, EmbeddingRequest } from '../types';
import { embeddingFamily } from './features';
import { traced } from '#tracing';

const PLATFORM = 'managed' as const;

/** Titan calls in flight at once for one request: quick without inviting throttling. */
const TITAN_CONCURRENCY = 8;
const COHERE_BATCH = 96;

const TITAN_V2_DIMENSIONS = [256, 512, 1024];
const COHERE_V4_DIMENSIONS = [256, 512, 1024, 1536];

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function refuseDimensions(target: string, dimensions: number, offered: number[]): never {
  throw new BadRequest(
    offered.length > 1
      ? `The managed model "${target}" makes vectors of ${offered.join(', ')} dimensions, not ${dimensions}`
      : `The managed model "${target}" makes vectors of ${offered[0]} dimensions only, not ${dimensions}`,
    { param: 'dimensions' },
  );
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

const isVector = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => typeof n === 'number');

export class BedrockEmbeddings implements EmbeddingCapable {
  private readonly runtime: PlatformClient<BedrockRuntimeClient>;

  constructor(options: AwsPlatformOptions) {
    this.runtime = new PlatformClient((throttling) => traced(new BedrockRuntimeClient(http2ClientConfig({ ...options, throttling }))));
  }

  async embed(request: EmbeddingRequest): Promise<EmbeddingReply> {
    const family = embeddingFamily(request.model ?? request.target);
    if (!family) throw new BadRequest(`The managed model "${request.target}" is not an embedding model this service can call`, { param: 'model' });
    const started = Date.now();
    const results =
      family === 'titan-v2' || family === 'titan-v1'
        ? await mapLimit(request.inputs, TITAN_CONCURRENCY, (text) => this.titan(request, family, text))
        : await mapLimit(chunks(request.inputs, COHERE_BATCH), 2, (texts) => this.cohere(request, family, texts));
    return {
      vectors: results.flatMap((r) => r.vectors),
      tokensIn: results.reduce((n, r) => n + r.tokens, 0),
      latencyMs: Date.now() - started,
      modelId: request.target,
    };
  }

  private async titan(request: EmbeddingRequest, family: 'titan-v2' | 'titan-v1', text: string) {
    const { dimensions } = request;
    let body: Record<string, unknown> = { inputText: text };
    if (family === 'titan-v2') {
      if (dimensions !== undefined && !TITAN_V2_DIMENSIONS.includes(dimensions)) refuseDimensions(request.target, dimensions, TITAN_V2_DIMENSIONS);
      body = { ...body, ...(dimensions !== undefined ? { dimensions } : {}), normalize: true };
    } else if (dimensions !== undefined && dimensions !== 1536) refuseDimensions(request.target, dimensions, [1536]);
    const { answer, tokens } = await this.invoke(request, body);
    const embedding = (answer as { embedding?: unknown } | null)?.embedding;
    if (!isVector(embedding)) throw unreadable(PLATFORM, 200);
    const count = (answer as { inputTextTokenCount?: unknown }).inputTextTokenCount;
    return { vectors: [embedding], tokens: tokens ?? (typeof count === 'number' ? count : estimateTokens(text)) };
  }

  private async cohere(request: EmbeddingRequest, family: 'cohere-v3' | 'cohere-v4', texts: string[]) {
    const { dimensions } = request;
    const body: Record<string, unknown> = { texts, input_type: request.inputType === 'query' ? 'search_query' : 'search_document' };
    if (family === 'cohere-v3' && dimensions !== undefined && dimensions !== 1024) refuseDimensions(request.target, dimensions, [1024]);
    if (family === 'cohere-v4' && dimensions !== undefined) {
      if (!COHERE_V4_DIMENSIONS.includes(dimensions)) refuseDimensions(request.target, dimensions, COHERE_V4_DIMENSIONS);
      body.output_dimension = dimensions;
    }
    const { answer, tokens } = await this.invoke(request, body);
    const reply = answer as { embeddings?: unknown; meta?: { billed_units?: { input_tokens?: unknown } } } | null;
    // Floats directly (response_type embeddings_floats), or keyed by type when types were asked for.
    const embeddings = Array.isArray(reply?.embeddings) ? reply.embeddings : (reply?.embeddings as { float?: unknown } | undefined)?.float;
    if (!Array.isArray(embeddings) || embeddings.length !== texts.length || !embeddings.every(isVector)) throw unreadable(PLATFORM, 200);
    const billed = reply?.meta?.billed_units?.input_tokens;
    return {
      vectors: embeddings,
      tokens: tokens ?? (typeof billed === 'number' ? billed : texts.reduce((n, t) => n + estimateTokens(t), 0)),
    };
  }

  /** One InvokeModel: the answer's JSON and the token count Bedrock puts in a header (not in the SDK's output). */
  private async invoke(request: EmbeddingRequest, body: Record<string, unknown>): Promise<{ answer: unknown; tokens?: number }> {
    const command = new InvokeModelCommand({
      modelId: request.target,
      contentType: 'application/json',
      accept: 'application/json',
      body: new TextEncoder().encode(JSON.stringify(body)),
    });
    let header: string | undefined;
    command.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const headers = (result.response as { headers?: Record<string, string> }).headers;
        header = headers?.['x-amzn-bedrock-input-token-count'];
        return result;
      },
      { step: 'deserialize', name: 'readInputTokenCount' },
    );
    const out = await guard(PLATFORM, () => this.runtime.for(request).send(command));
    let answer: unknown;
    try {
      answer = JSON.parse(new TextDecoder().decode(out.body));
    } catch {
      throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    }
    const tokens = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
    return { answer, tokens };
  }

  /** Closes the client's sessions (tests; a Lambda container just freezes). */
  destroy(): void {
    this.runtime.destroy();
  }
}

export function createManagedEmbeddings(overrides: Partial<AwsPlatformOptions> = {}): BedrockEmbeddings {
  return new BedrockEmbeddings(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const managedEmbeddings: EmbeddingCapable = /* @__PURE__ */ createManagedEmbeddings();
