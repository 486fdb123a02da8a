/**
 * lib/dialects/openai-embeddings.ts: OpenAI's embeddings request read into the canonical one, and the
 * vectors written back as floats or as OpenAI's base64 (float32, little-endian), which the `openai`
 * client asks for by default and decodes itself.
 */
import OpenAI from 'openai';
import { MAX_TOTAL_CHARS, answer, base64Vector, parse } from '../../lib/dialects/openai-embeddings';
import { BadRequest } from '../../lib/errors';
import type { EmbeddingReply } from '../../lib/platforms/types';
import { META, answering } from '../helpers/dialects';

const settled = { tokensIn: 9, tokensOut: 0, cost: 1_800 };
const reply: EmbeddingReply = {
  vectors: [
    [0.5, -0.25, 1e-7],
    [3.25, 0, -1],
  ],
  tokensIn: 9,
  latencyMs: 3,
  modelId: 'amazon.titan-embed-text-v2:0',
};

describe('reading an embeddings request', () => {
  test('one text is a list of one; dimensions pass through; float is the default encoding', () => {
    expect(parse({ model: 'emb', input: 'hello', dimensions: 256 })).toEqual({
      model: 'emb',
      request: { inputs: ['hello'], dimensions: 256 },
      encoding: 'float',
    });
    expect(parse({ model: 'emb', input: ['a', 'b'], encoding_format: 'base64', user: 'u' })).toEqual({
      model: 'emb',
      request: { inputs: ['a', 'b'] },
      encoding: 'base64',
    });
  });

  test('more text than one call may carry is refused, asking for smaller batches', () => {
    const input = Array.from({ length: 21 }, () => 'x'.repeat(50_000));
    expect(() => parse({ model: 'emb', input: input.slice(0, 20) })).not.toThrow();
    let err: unknown;
    try {
      parse({ model: 'emb', input });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadRequest);
    expect((err as BadRequest).message).toBe(
      `Invalid field 'input': the inputs have 1050000 characters together; the limit is ${MAX_TOTAL_CHARS}: send them in smaller batches`,
    );
  });
});

describe('answering an embeddings request', () => {
  test('the vectors are OpenAI’s list of embeddings, in the inputs’ order, with the tokens settled', () => {
    expect(answer(reply, settled, META, { encoding: 'float' })).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.5, -0.25, 1e-7] },
        { object: 'embedding', index: 1, embedding: [3.25, 0, -1] },
      ],
      model: 'my-model',
      usage: { prompt_tokens: 9, total_tokens: 9 },
    });
  });

  test('base64 is the vector’s float32 bytes, little-endian', () => {
    const bytes = Buffer.from(base64Vector([1, -2.5]), 'base64');
    expect([...bytes]).toEqual([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0]);
  });

  test('the openai client, which asks for base64 by default, decodes the vectors to the same numbers (as float32)', async () => {
    const { fetch, sent } = answering(answer(reply, settled, META, { encoding: 'base64' }));
    const client = new OpenAI({ apiKey: 'mo_test', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 });
    const result = await client.embeddings.create({ model: 'emb', input: ['a', 'b'] });
    expect(sent[0]?.body.encoding_format).toBe('base64');
    expect(result.data.map((d) => d.embedding)).toEqual(reply.vectors.map((v) => [...new Float32Array(v)]));
    expect(result.usage).toEqual({ prompt_tokens: 9, total_tokens: 9 });
  });
});
