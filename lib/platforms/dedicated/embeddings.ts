/**
 * Embeddings on a dedicated endpoint that runs Hugging Face's Text Embeddings Inference (TEI). On
 * SageMaker, TEI's /invocations is its /embed: `{inputs: [texts], normalize, dimensions?}` in, an array
 * of vectors out, at most --max-client-batch-size texts a call (32 unless the container was started
 * otherwise), so longer requests go in batches. InvokeEndpoint passes no container headers back, so
 * TEI's token count is not seen: the tokens are estimated. Its own module and client, so that only the
 * embeddings functions bundle it.
 */
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { mapLimit } from '../../concurrency';
import { PlatformClient, http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { unreadable } from '../errors';
import type { EmbeddingCapable, EmbeddingReply, EmbeddingRequest } from '../types';
import { PLATFORM, estimateTokens, invokeJson } from './invoke';
import { traced } from '#tracing';

/** TEI's default --max-client-batch-size. */
const TEI_BATCH = 32;

const isVector = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => typeof n === 'number');

export class SageMakerEndpointEmbeddings implements EmbeddingCapable {
  private readonly runtime: PlatformClient<SageMakerRuntimeClient>;

  constructor(options: AwsPlatformOptions) {
    this.runtime = new PlatformClient((throttling) => traced(new SageMakerRuntimeClient(http1ClientConfig({ ...options, throttling }))));
  }

  async embed(request: EmbeddingRequest): Promise<EmbeddingReply> {
    const started = Date.now();
    const batches: string[][] = [];
    for (let at = 0; at < request.inputs.length; at += TEI_BATCH) batches.push(request.inputs.slice(at, at + TEI_BATCH));
    const results = await mapLimit(batches, 2, (inputs) => this.batch(request, inputs));
    return {
      vectors: results.flat(),
      tokensIn: request.inputs.reduce((n, t) => n + estimateTokens(t), 0),
      latencyMs: Date.now() - started,
      modelId: request.target,
    };
  }

  private async batch(request: EmbeddingRequest, inputs: string[]): Promise<number[][]> {
    const body = { inputs, normalize: true, ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}) };
    const { answer, status } = await invokeJson(this.runtime.for(request), request.target, body);
    if (!Array.isArray(answer) || answer.length !== inputs.length || !answer.every(isVector)) throw unreadable(PLATFORM, status);
    return answer;
  }

  destroy(): void {
    this.runtime.destroy();
  }
}

export function createDedicatedEmbeddings(overrides: Partial<AwsPlatformOptions> = {}): SageMakerEndpointEmbeddings {
  return new SageMakerEndpointEmbeddings(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedEmbeddings: EmbeddingCapable = /* @__PURE__ */ createDedicatedEmbeddings();
