/**
 * The three embeddings adapters through the real clients against a private emulator: Bedrock
 * InvokeModel with Titan v2's and Cohere Embed's own bodies, the hosted API's /embeddings, and a TEI
 * container on a dedicated endpoint; batching, dimensions, token counts and faults.
 */
import { jest } from '@jest/globals';
import { BadRequest, UpstreamError } from '../../lib/errors';
import { createDedicatedEmbeddings } from '../../lib/platforms/dedicated/embeddings';
import { createDedicatedEndpoints } from '../../lib/platforms/dedicated/endpoints';
import { createHostedPlatform } from '../../lib/platforms/hosted/api';
import { createManagedEmbeddings } from '../../lib/platforms/managed/embeddings';
import type { EmbeddingCapable } from '../../lib/platforms/types';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { injectFault, rejection } from '../emulator/helpers';

jest.setTimeout(60_000);

const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-english-v3';
const BGE = 'baai/bge-m3';
const TEI_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/tei:2.0.1-tei1.4.0-gpu-py310-cu122-ubuntu22.04';

let emulator: RunningEmulator;
let managed: EmbeddingCapable;
let dedicated: EmbeddingCapable;
let hosted: EmbeddingCapable;
const calls = (op: string) => emulator.state.calls[op] ?? 0;
const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i}`);
const norm = (v: number[]) => Math.hypot(...v);

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, hostedApiKey: 'emb-key' });
  const options = { endpoint: emulator.url, timeoutMs: 3000, maxAttempts: 1 };
  managed = createManagedEmbeddings(options);
  dedicated = createDedicatedEmbeddings(options);
  hosted = createHostedPlatform({ baseUrl: `${emulator.url}/v1`, apiKey: 'emb-key', timeoutMs: 3000, maxAttempts: 1 });
  const endpoints = createDedicatedEndpoints(options);
  await endpoints.deploy({
    resourceId: '00000000-0000-4000-8000-000000000023',
    endpointName: 'emb-tei',
    instanceType: 'ml.g5.xlarge',
    instanceCount: 1,
    executionRoleArn: 'arn:aws:iam::123456789012:role/r',
    subnetIds: [],
    securityGroupIds: [],
    inferenceImage: TEI_IMAGE,
  });
  endpoints.destroy();
});
afterEach(() => fetch(`${emulator.url}/_emulator/faults`, { method: 'DELETE' }));
afterAll(() => emulator.close());

describe('managed embeddings: Titan Text Embeddings v2', () => {
  test('one InvokeModel per text, vectors in the inputs’ order, 1024 numbers of unit length, tokens as Titan counts them', async () => {
    const before = calls('InvokeModel');
    const reply = await managed.embed({ target: TITAN, inputs: ['alpha', 'beta gamma', 'delta'] });
    expect(calls('InvokeModel') - before).toBe(3);
    expect(reply.vectors.map((v) => v.length)).toEqual([1024, 1024, 1024]);
    expect(norm(reply.vectors[0] as number[])).toBeCloseTo(1, 4);
    expect(reply).toMatchObject({ tokensIn: 2 + 3 + 2, modelId: TITAN, latencyMs: expect.any(Number) });
    const [alone] = (await managed.embed({ target: TITAN, inputs: ['beta gamma'] })).vectors;
    expect(reply.vectors[1]).toEqual(alone);
  });

  test('dimensions 256 and 512 are passed through', async () => {
    expect((await managed.embed({ target: TITAN, inputs: ['a'], dimensions: 256 })).vectors[0]).toHaveLength(256);
    expect((await managed.embed({ target: TITAN, inputs: ['a'], dimensions: 512 })).vectors[0]).toHaveLength(512);
  });

  test('dimensions Titan does not offer are refused before any call, naming the sizes it has', async () => {
    const before = calls('InvokeModel');
    const err = await rejection(managed.embed({ target: TITAN, inputs: ['a'], dimensions: 300 }));
    expect(err).toBeInstanceOf(BadRequest);
    expect(err).toMatchObject({ message: `The managed model "${TITAN}" makes vectors of 256, 512, 1024 dimensions, not 300`, param: 'dimensions' });
    expect(calls('InvokeModel')).toBe(before);
  });
});

describe('managed embeddings: Cohere Embed v3', () => {
  test('texts go 96 a call, and the tokens are the header’s count', async () => {
    const before = calls('InvokeModel');
    const reply = await managed.embed({ target: COHERE, inputs: texts(100) });
    expect(calls('InvokeModel') - before).toBe(2);
    expect(reply.vectors).toHaveLength(100);
    expect(reply.vectors.every((v) => v.length === 1024)).toBe(true);
    expect(reply.tokensIn).toBe(texts(100).reduce((n, t) => n + Math.ceil(t.length / 4), 0));
  });

  test('queries and documents are embedded as Cohere’s search_query and search_document', async () => {
    const [asDocument] = (await managed.embed({ target: COHERE, inputs: ['where is it'] })).vectors;
    const [asQuery] = (await managed.embed({ target: COHERE, inputs: ['where is it'], inputType: 'query' })).vectors;
    const [documentAgain] = (await managed.embed({ target: COHERE, inputs: ['where is it'], inputType: 'document' })).vectors;
    expect(asQuery).not.toEqual(asDocument);
    expect(documentAgain).toEqual(asDocument);
  });

  test('dimensions other than 1024 are refused', async () => {
    expect(await rejection(managed.embed({ target: COHERE, inputs: ['a'], dimensions: 512 }))).toMatchObject({ param: 'dimensions' });
    expect((await managed.embed({ target: COHERE, inputs: ['a'], dimensions: 1024 })).vectors[0]).toHaveLength(1024);
  });

  test('a model with no known embedding body is refused before any call', async () => {
    const err = await rejection(managed.embed({ target: 'anthropic.claude-3-haiku-20240307-v1:0', inputs: ['a'] }));
    expect(err).toBeInstanceOf(BadRequest);
    expect(err.param).toBe('model');
  });

  test.each([
    ['500', 502, 'The managed platform failed (status 500)'],
    ['429', 503, 'The managed platform is throttling requests'],
    ['malformed', 502, 'The managed platform returned a response that could not be read'],
    ['timeout', 504, 'The managed platform did not answer in time'],
    ['fail', 502, 'The model on the managed platform failed (status 500)'],
  ])('an InvokeModel %s fault is %s "%s"', async (fault, status, message) => {
    await injectFault(emulator.url, { target: 'InvokeModel', model: COHERE, fault });
    const err = await rejection(managed.embed({ target: COHERE, inputs: ['a'] }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ statusCode: status, message });
  });
});

describe('hosted embeddings', () => {
  test('every text in one call, with the API’s token count', async () => {
    const before = calls('embeddings');
    const reply = await hosted.embed({ target: BGE, inputs: texts(5) });
    expect(calls('embeddings') - before).toBe(1);
    expect(reply.vectors).toHaveLength(5);
    expect(reply.vectors[0]).toHaveLength(1024);
    expect(reply).toMatchObject({ tokensIn: 5 * 4, modelId: BGE });
  });

  test('dimensions pass through, and the API’s refusal keeps its status', async () => {
    const err = await rejection(hosted.embed({ target: BGE, inputs: ['a'], dimensions: 256 }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ upstreamStatus: 400, details: `Model ${BGE} does not support the dimensions parameter` });
  });

  test('a throttled embeddings call is an UpstreamError', async () => {
    await injectFault(emulator.url, { target: 'embeddings', model: BGE, fault: '429' });
    expect(await rejection(hosted.embed({ target: BGE, inputs: ['a'] }))).toMatchObject({ statusCode: 503 });
  });
});

describe('dedicated embeddings (TEI)', () => {
  test('texts go 32 a call, normalised, and the tokens are estimated', async () => {
    const before = calls('InvokeEndpoint');
    const reply = await dedicated.embed({ target: 'emb-tei', inputs: texts(40) });
    expect(calls('InvokeEndpoint') - before).toBe(2);
    expect(reply.vectors).toHaveLength(40);
    expect(norm(reply.vectors[39] as number[])).toBeCloseTo(1, 4);
    expect(reply.tokensIn).toBe(texts(40).reduce((n, t) => n + Math.ceil(t.length / 4), 0));
    const [last] = (await dedicated.embed({ target: 'emb-tei', inputs: ['text number 39'] })).vectors;
    expect(reply.vectors[39]).toEqual(last);
  });

  test('dimensions pass through to TEI', async () => {
    expect((await dedicated.embed({ target: 'emb-tei', inputs: ['a'], dimensions: 384 })).vectors[0]).toHaveLength(384);
  });

  test('an endpoint that does not exist says it is not available', async () => {
    expect(await rejection(dedicated.embed({ target: 'no-such-endpoint', inputs: ['a'] }))).toMatchObject({
      message: 'The dedicated endpoint "no-such-endpoint" is not available (not found, or not InService)',
    });
  });

  test('a failing container is the model’s failure', async () => {
    await injectFault(emulator.url, { target: 'InvokeEndpoint', model: 'emb-tei', fault: 'fail' });
    expect(await rejection(dedicated.embed({ target: 'emb-tei', inputs: ['a'] }))).toMatchObject({
      statusCode: 502,
      message: 'The model on the dedicated platform failed (status 500)',
    });
  });
});
