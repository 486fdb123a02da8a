/**
 * The managed adapters (Bedrock in managed.ts, Bedrock runtime in managed-chat.ts) through the real SDK clients: the shared test
 * emulator for the happy paths, a private emulator for faults (managed model ids are shared by every
 * test file, so a fault on the shared one could hit another file's call).
 */
import { jest } from '@jest/globals';
import { UpstreamError } from '../../lib/errors';
import { createManagedPlatform, managed, type BedrockManagedPlatform } from '../../lib/platforms/managed/catalogue';
import { createManagedChat, managedChat, type BedrockConverseChat } from '../../lib/platforms/managed/chat';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { control, injectFault, rejection } from '../emulator/helpers';

// Generous: the runners share two cores with several DynamoDB Locals.
jest.setTimeout(60_000);

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const TITAN = 'amazon.titan-text-express-v1';

describe('managed adapter against the shared emulator', () => {
  test('listModels maps every foundation model to the spec 2.6 managed list entry', async () => {
    const models = await managed.listModels();
    expect(models).toHaveLength(14);
    expect(models.find((m) => m.modelId === HAIKU)).toEqual({
      modelId: HAIKU,
      providerName: 'Anthropic',
      modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${HAIKU}`,
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['TEXT'],
      inferenceTypesSupported: ['ON_DEMAND'],
      customization: [],
      // Claude 3 Haiku is a legacy model on Bedrock today; the catalogue passes its lifecycle on, with
      // the end of life AWS's model card gives (its launch date is not a lifecycle transition we show).
      modelLifecycle: { status: 'LEGACY', endOfLifeTime: '2026-09-10T00:00:00.000Z' },
    });
    expect(models.find((m) => m.modelId === TITAN)?.customization).toEqual(['FINE_TUNING', 'CONTINUED_PRE_TRAINING']);
  });

  test('the model detail is the platform’s, with pricing lines from the price table', async () => {
    const { managedModelDetail } = await import('../../lib/catalogue/managed');
    expect((await managedModelDetail(HAIKU)).modelInfo).toEqual({
      modelId: HAIKU,
      modelName: 'Claude 3 Haiku',
      providerName: 'Anthropic',
      modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${HAIKU}`,
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['TEXT'],
      responseStreamingSupported: true,
      customizationsSupported: [],
      inferenceTypesSupported: ['ON_DEMAND'],
      modelLifecycle: { status: 'LEGACY', endOfLifeTime: '2026-09-10T00:00:00.000Z' },
      pricing: { inputTokens: '$0.00025 per 1K input tokens', outputTokens: '$0.00125 per 1K output tokens' },
    });
  });

  test('getModel of an unknown model is undefined, not an error', async () => {
    expect(await managed.getModel('acme.no-such-model-v1:0')).toBeUndefined();
  });

  test('invokeUrl is the Converse URL of the model on the configured endpoint', () => {
    expect(managed.invokeUrl(HAIKU)).toBe(`${process.env.SERVICE_CLOUD_ENDPOINT}/model/${HAIKU}/converse`);
    expect(createManagedPlatform({ endpoint: undefined, region: 'eu-west-1' }).invokeUrl(HAIKU)).toBe(
      `https://bedrock-runtime.eu-west-1.amazonaws.com/model/${HAIKU}/converse`,
    );
  });

  test('region is the configured SERVICE_CLOUD_REGION', () => {
    expect(managed.region).toBe('us-east-1');
  });

  test('chat sends the system prompt and the whole conversation through Converse and reports its usage and latency', async () => {
    const reply = await managedChat.chat({
      target: TITAN,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'second question' },
      ],
      maxTokens: 200,
    });
    expect(reply.content).toContain('You said: "second question"');
    expect(reply.content).toContain('earlier user messages: [first question]');
    expect(reply.content).toContain('system: yes');
    expect(reply.tokensIn).toBeGreaterThan(0);
    expect(reply.tokensOut).toBeGreaterThan(0);
    expect(reply.latencyMs).toEqual(expect.any(Number));
    expect(reply.modelId).toBe(TITAN);
  });

  test('chat passes maxTokens as inferenceConfig.maxTokens', async () => {
    const reply = await managedChat.chat({ target: TITAN, messages: [{ role: 'user', content: 'hello there' }], maxTokens: 3 });
    expect(reply.tokensOut).toBeLessThanOrEqual(3);
  });

  test('chat with an unknown model is an UpstreamError naming the platform', async () => {
    const err = await rejection(managedChat.chat({ target: 'acme.none-v1:0', messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toBe('The managed platform rejected the request (status 404)');
  });
});

describe('managed adapter faults (private emulator)', () => {
  let emulator: RunningEmulator;
  let platform: BedrockManagedPlatform;
  let chat: BedrockConverseChat;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    platform = createManagedPlatform({ endpoint: emulator.url, timeoutMs: 300, maxAttempts: 3 });
    chat = createManagedChat({ endpoint: emulator.url, timeoutMs: 300, maxAttempts: 3 });
  });
  afterEach(async () => {
    await control(emulator.url, 'DELETE', '/faults');
    await control(emulator.url, 'POST', '/reset');
  });
  afterAll(async () => {
    platform.destroy();
    chat.destroy();
    await emulator.close();
  });

  test('a 500 on ListFoundationModels is retried up to the attempt limit, then a 502 "failed (status 500)"', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '500' });
    const err = await rejection(platform.listModels());
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ statusCode: 502, message: 'The managed platform failed (status 500)', upstreamStatus: 500, platform: 'managed' });
    expect((await control(emulator.url, 'GET', '/state')).body.calls.ListFoundationModels).toBe(3);
  });

  test('a single 500 is absorbed by the retry', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '500', count: 1 });
    expect(await platform.listModels()).toHaveLength(14);
  });

  test('throttling is a 503 "is throttling requests"', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '429' });
    const err = await rejection(platform.listModels());
    expect(err).toMatchObject({ statusCode: 503, message: 'The managed platform is throttling requests', upstreamStatus: 429 });
  });

  test('a platform that never answers is a 504 after the per-attempt timeouts', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: 'timeout' });
    const started = Date.now();
    const err = await rejection(platform.listModels());
    expect(err).toMatchObject({ statusCode: 504, message: 'The managed platform did not answer in time' });
    // Three attempts of 300 ms plus backoff, not the default 15 s per attempt.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('a malformed body is a 502 "could not be read"', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: 'malformed' });
    const err = await rejection(platform.listModels());
    expect(err).toMatchObject({ statusCode: 502, message: 'The managed platform returned a response that could not be read', upstreamStatus: 200 });
  });

  test('a fault on GetFoundationModel is an UpstreamError, not "unknown model"', async () => {
    await injectFault(emulator.url, { target: 'GetFoundationModel', model: HAIKU, fault: '500' });
    const err = await rejection(platform.getModel(HAIKU));
    expect(err).toMatchObject({ statusCode: 502, message: 'The managed platform failed (status 500)' });
  });

  test('a model failure in Converse reports the model status', async () => {
    await injectFault(emulator.url, { target: 'Converse', model: TITAN, fault: 'fail' });
    const err = await rejection(chat.chat({ target: TITAN, messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toMatchObject({ statusCode: 502, message: 'The model on the managed platform failed (status 500)' });
  });

  test('Converse timing out over HTTP/2 is a 504', async () => {
    await injectFault(emulator.url, { target: 'Converse', model: TITAN, fault: 'timeout' });
    const err = await rejection(chat.chat({ target: TITAN, messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toMatchObject({ statusCode: 504, message: 'The managed platform did not answer in time' });
  });

  test.each(['429', 'malformed'])('Converse fault %s is an UpstreamError naming the platform', async (fault) => {
    await injectFault(emulator.url, { target: 'Converse', model: TITAN, fault });
    const err = await rejection(chat.chat({ target: TITAN, messages: [{ role: 'user', content: 'hi' }] }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/^The managed platform /);
  });
});
