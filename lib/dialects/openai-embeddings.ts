/**
 * OpenAI's embeddings (POST /v1/embeddings) as the canonical embedding request, and back.
 *
 * `input` is one text or an array of texts (arrays of token ids are refused by the request check:
 * the gateway has no tokenizer of the platforms' models); `dimensions` passes through for models that
 * offer several sizes; `encoding_format` is float (JSON numbers) or base64 (the vector's float32 bytes,
 * little-endian, as OpenAI sends them: the official `openai` client asks for base64 by default and
 * decodes it itself); `user` is recorded with the call (lib/gateway/attribution.ts). The answer is OpenAI's list of embeddings with the
 * tokens counted as the call was settled.
 */
import type { EmbeddingReply, EmbeddingRequest } from '../platforms/types';
import { invalid } from './common';
import type { EmbeddingsBody } from './schemas/openai-embeddings';
import type { CallMeta, Settled } from './types';

/** The request, as its schema (./schemas/openai-embeddings.ts) lets it through. */
export type { EmbeddingsBody };

export interface EmbeddingsCall {
  model: string;
  request: Omit<EmbeddingRequest, 'target'>;
  encoding: NonNullable<EmbeddingsBody['encoding_format']>;
}

/**
 * The most text one request may carry, all inputs together (characters). Each input is bounded by the
 * request check (about one model context); together they bound the work of one call. A client with
 * more splits its batch: LangChain and the AI SDK do so by count already.
 */
export const MAX_TOTAL_CHARS = 1_000_000;

export function parse(body: EmbeddingsBody): EmbeddingsCall {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  const total = inputs.reduce((n, text) => n + text.length, 0);
  if (total > MAX_TOTAL_CHARS) {
    throw invalid('input', `the inputs have ${total} characters together; the limit is ${MAX_TOTAL_CHARS}: send them in smaller batches`);
  }
  return {
    model: body.model,
    request: { inputs, ...(body.dimensions !== undefined && { dimensions: body.dimensions }) },
    encoding: body.encoding_format ?? 'float',
  };
}

/** A vector as OpenAI's base64 encoding: its numbers as float32, little-endian, in base64. */
export function base64Vector(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

export function answer(reply: EmbeddingReply, settled: Settled, meta: CallMeta, call: Pick<EmbeddingsCall, 'encoding'>) {
  return {
    object: 'list',
    data: reply.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: call.encoding === 'base64' ? base64Vector(vector) : vector,
    })),
    model: meta.model,
    usage: { prompt_tokens: settled.tokensIn, total_tokens: settled.tokensIn },
  };
}
