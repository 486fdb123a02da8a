/**
 * The hosted adapter (OpenAI-compatible API over fetch) against the emulator's /v1: the shared
 * emulator for the happy paths, a private one for faults on the model list (which no fault can be
 * scoped to a model on, so a fault there would hit every other test file listing models).
 */
import { jest } from '@jest/globals';
import { UpstreamError } from '../../lib/errors';
import { createHostedPlatform, hosted, type OpenAiHostedPlatform } from '../../lib/platforms/hosted/api';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { control, injectFault, rejection } from '../emulator/helpers';

jest.setTimeout(60_000);

const LLAMA = 'meta/llama-3.1-8b-instruct';
const BASE_URL = process.env.HOSTED_BASE_URL as string;

describe('hosted adapter against the shared emulator', () => {
  test('configured and baseUrl come from HOSTED_API_KEY and HOSTED_BASE_URL', () => {
    expect(hosted.configured).toBe(true);
    expect(hosted.baseUrl).toBe(BASE_URL);
    expect(createHostedPlatform({ apiKey: undefined }).configured).toBe(false);
  });

  test('listModels maps /v1/models to hosted list entries and keeps the raw answer', async () => {
    const { models, raw } = await hosted.listModels();
    expect(models).toHaveLength(8);
    expect(models.find((m) => m.id === LLAMA)).toEqual({
      id: LLAMA,
      name: 'Llama 3.1 8B Instruct',
      provider: 'hosted',
      tags: ['llama', 'chat'],
      task: 'chat',
    });
    expect(raw).toMatchObject({
      object: 'list',
      data: expect.arrayContaining([expect.objectContaining({ id: LLAMA, object: 'model', owned_by: 'meta' })]),
    });
  });

  test('the spec 2.6 model detail is built from the catalogue, with pricing lines from the price table', async () => {
    const { hostedModelDetail } = await import('../../lib/catalogue/hosted');
    expect((await hostedModelDetail(LLAMA)).modelInfo).toEqual({
      modelId: LLAMA,
      modelName: 'Llama 3.1 8B Instruct',
      providerName: 'meta',
      modelArn: `${BASE_URL}/models/${LLAMA}`,
      inputModalities: ['TEXT'],
      outputModalities: ['TEXT'],
      responseStreamingSupported: true,
      customizationsSupported: ['SYSTEM_PROMPT'],
      inferenceTypesSupported: ['ON_DEMAND'],
      modelLifecycle: { status: 'ACTIVE' },
      pricing: { inputTokens: '$0.0003 per 1K input tokens', outputTokens: '$0.0003 per 1K output tokens' },
    });
  });

  test('getModel of a model the platform does not list is undefined', async () => {
    expect(await hosted.getModel('meta/no-such-model')).toBeUndefined();
  });

  test('checkConnectivity answers with the chat completions endpoint', async () => {
    expect(await hosted.checkConnectivity(LLAMA)).toEqual({ endpoint: `${BASE_URL}/chat/completions` });
  });

  test('checkConnectivity of an unknown model is a 502 that carries the upstream 404', async () => {
    const err = await rejection(hosted.checkConnectivity('meta/no-such-model'));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({
      statusCode: 502,
      upstreamStatus: 404,
      message: 'The hosted platform does not know the model "meta/no-such-model" (status 404)',
    });
  });

  test('chat posts the system prompt and the conversation and reports usage', async () => {
    const reply = await hosted.chat({
      target: LLAMA,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
      ],
      maxTokens: 100,
    });
    expect(reply.content).toContain('You said: "three"');
    expect(reply.content).toContain('system: yes');
    expect(reply.tokensIn).toBeGreaterThan(0);
    expect(reply.tokensOut).toBeGreaterThan(0);
    expect(reply.modelId).toBe(LLAMA);
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0);
  });

  test('chat without a configured key is refused before any call', async () => {
    const err = await rejection(createHostedPlatform({ apiKey: undefined }).chat({ target: LLAMA, messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toMatchObject({ statusCode: 502, message: 'The hosted platform is not configured: HOSTED_API_KEY is not set' });
  });

  test('a wrong key is a 502 "refused the service\'s credentials" with the upstream status', async () => {
    const err = await rejection(createHostedPlatform({ apiKey: 'wrong-key' }).chat({ target: LLAMA, messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toMatchObject({
      statusCode: 502,
      upstreamStatus: 403,
      message: "The hosted platform refused the service's credentials (status 403)",
    });
  });
});

describe('hosted adapter faults (private emulator)', () => {
  let emulator: RunningEmulator;
  let platform: OpenAiHostedPlatform;
  const calls = async (op: string) => (await control(emulator.url, 'GET', '/state')).body.calls[op] ?? 0;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, hostedApiKey: 'private-key' });
    platform = createHostedPlatform({ baseUrl: `${emulator.url}/v1`, apiKey: 'private-key', timeoutMs: 300, maxAttempts: 3 });
  });
  afterEach(async () => {
    await control(emulator.url, 'DELETE', '/faults');
    await control(emulator.url, 'POST', '/reset');
  });
  afterAll(() => emulator.close());

  test('a 500 is retried up to the attempt limit, then a 502 that carries the upstream status', async () => {
    await injectFault(emulator.url, { target: 'models.list', fault: '500' });
    const err = await rejection(platform.listModels());
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ statusCode: 502, upstreamStatus: 500, message: 'The hosted platform failed (status 500)', platform: 'hosted' });
    expect(err.details).toBe('An unexpected error occurred while processing the request');
    expect(await calls('models.list')).toBe(3);
  });

  test('one throttled answer is retried away', async () => {
    await injectFault(emulator.url, { target: 'models.list', fault: '429', count: 1 });
    expect((await platform.listModels()).models).toHaveLength(8);
    expect(await calls('models.list')).toBe(2);
  });

  test('persistent throttling is a 503 "is throttling requests"', async () => {
    await injectFault(emulator.url, { target: 'models.list', fault: '429' });
    const err = await rejection(platform.listModels());
    expect(err).toMatchObject({ statusCode: 503, upstreamStatus: 429, message: 'The hosted platform is throttling requests' });
  });

  test('a platform that never answers is a 504 after each attempt times out', async () => {
    await injectFault(emulator.url, { target: 'models.list', fault: 'timeout' });
    const err = await rejection(platform.listModels());
    expect(err).toMatchObject({ statusCode: 504, message: 'The hosted platform did not answer in time' });
    expect(await calls('models.list')).toBe(3);
  });

  test('a malformed body is a 502 "could not be read" and is not retried', async () => {
    await injectFault(emulator.url, { target: 'models.list', fault: 'malformed' });
    const err = await rejection(platform.listModels());
    expect(err).toMatchObject({ statusCode: 502, upstreamStatus: 200, message: 'The hosted platform returned a response that could not be read' });
    expect(await calls('models.list')).toBe(1);
  });

  test('a 4xx other than 429 is not retried', async () => {
    const err = await rejection(
      createHostedPlatform({ baseUrl: `${emulator.url}/v1`, apiKey: 'bad', maxAttempts: 3 }).chat({
        target: LLAMA,
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(err.upstreamStatus).toBe(403);
    expect(await calls('chat.completions')).toBe(1);
  });

  test.each(['500', '429', 'timeout', 'malformed'])('a %s fault on chat completions is an UpstreamError naming the platform', async (fault) => {
    await injectFault(emulator.url, { target: 'chat.completions', model: LLAMA, fault });
    const err = await rejection(platform.chat({ target: LLAMA, messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/^The hosted platform /);
  });

  test('a fault on the model lookup fails the connectivity check with the upstream status', async () => {
    await injectFault(emulator.url, { target: 'models.retrieve', model: LLAMA, fault: '500' });
    const err = await rejection(platform.checkConnectivity(LLAMA));
    expect(err).toMatchObject({ statusCode: 502, upstreamStatus: 500 });
  });

  test('an unreachable platform is a 502 "could not be reached"', async () => {
    const closed = await startEmulator({ port: 0 });
    const url = closed.url;
    await closed.close();
    const err = await rejection(createHostedPlatform({ baseUrl: `${url}/v1`, maxAttempts: 2, timeoutMs: 300 }).listModels());
    expect(err).toMatchObject({ statusCode: 502, message: 'The hosted platform could not be reached' });
  });
});
