/**
 * The three adapters' streamed chat (chatStream) through the real clients against a private emulator:
 * Bedrock ConverseStream and SageMaker InvokeEndpointWithResponseStream through the AWS SDK (event
 * stream framing decoded by the SDK's own codec), the hosted API's server-sent events through fetch.
 * Private, because stream faults are matched by model and the shared emulator serves every file.
 */
import { jest } from '@jest/globals';
import { UpstreamError } from '../../lib/errors';
import { createDedicatedChat } from '../../lib/platforms/dedicated/chat';
import { createHostedPlatform } from '../../lib/platforms/hosted/api';
import { createManagedChat } from '../../lib/platforms/managed/chat';
import type { ChatCapable, ChatRequest, ChatStreamEvent } from '../../lib/platforms/types';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { control, injectFault, rejection } from '../emulator/helpers';

jest.setTimeout(60_000);

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const LLAMA = 'meta/llama-3.1-8b-instruct';
const ENDPOINT = 'stream-endpoint';

let emulator: RunningEmulator;
const adapters: Record<'managed' | 'dedicated' | 'hosted', { chat: ChatCapable; target: string; op: string }> = {} as never;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, hostedApiKey: 'private-key' });
  const options = { endpoint: emulator.url, timeoutMs: 2000, maxAttempts: 1 };
  adapters.managed = { chat: createManagedChat(options), target: HAIKU, op: 'ConverseStream' };
  adapters.dedicated = { chat: createDedicatedChat(options), target: ENDPOINT, op: 'InvokeEndpointWithResponseStream' };
  adapters.hosted = {
    chat: createHostedPlatform({ baseUrl: `${emulator.url}/v1`, apiKey: 'private-key', timeoutMs: 2000, maxAttempts: 1 }),
    target: LLAMA,
    op: 'chat.completions',
  };
  expect((await control(emulator.url, 'POST', '/endpoints', { name: ENDPOINT })).status).toBe(201);
});
afterEach(() => control(emulator.url, 'DELETE', '/faults'));
afterAll(() => emulator.close());

const request = (target: string): ChatRequest => ({
  target,
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'stream this answer to me please' }],
  maxTokens: 200,
});

async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const all: ChatStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe.each(['managed', 'dedicated', 'hosted'] as const)('%s chatStream', (platform) => {
  test('streams text pieces that make the same reply as chat, then the stop reason and the same usage', async () => {
    const { chat, target } = adapters[platform];
    const [events, whole] = await Promise.all([collect(chat.chatStream(request(target))), chat.chat(request(target))]);
    const texts = events.filter((e) => e.kind === 'text').map((e) => e.text);
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.join('')).toBe(whole.content);
    expect(events.find((e) => e.kind === 'stop')).toEqual({ kind: 'stop', finishReason: 'stop' });
    expect(events.at(-1)).toMatchObject({ kind: 'usage', tokensIn: whole.tokensIn, tokensOut: whole.tokensOut });
  });

  test('a failure after the first pieces is an UpstreamError from the stream, after the text already sent', async () => {
    const { chat, target, op } = adapters[platform];
    await injectFault(emulator.url, { target: op, model: target, fault: 'midstream', count: 1 });
    const seen: ChatStreamEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const event of chat.chatStream(request(target))) seen.push(event);
      })(),
    );
    expect(seen.some((e) => e.kind === 'text')).toBe(true);
    expect(seen.some((e) => e.kind === 'usage')).toBe(false);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ statusCode: 502, message: expect.stringMatching(/failed while answering$/) });
  });

  test('a throttled call is an UpstreamError with its status before any event', async () => {
    const { chat, target, op } = adapters[platform];
    await injectFault(emulator.url, { target: op, model: target, fault: '429', count: 1 });
    const iterator = chat.chatStream(request(target))[Symbol.asyncIterator]();
    const err = await rejection(iterator.next());
    expect(err).toMatchObject({ statusCode: 503, message: `The ${platform} platform is throttling requests` });
  });
});
