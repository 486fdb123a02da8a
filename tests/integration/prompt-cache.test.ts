/**
 * Prompt caching and service tiers on the managed platform: the Converse adapter against the shared
 * emulator through the real Bedrock runtime client, and the one place a call is priced.
 */
import { BadRequest } from '../../lib/errors';
import { managedChat } from '../../lib/platforms/managed/chat';
import type { ChatRequest } from '../../lib/platforms/types';
import { callCost } from '../../lib/pricing/service';

// A system prompt well past Nova's 1,000-token minimum, unique to this run so no earlier run's entry is read.
const manual = `Run ${Math.random()}. ` + 'The service handbook says every answer must cite its section number. '.repeat(80);

const cachedTurn = (question: string): ChatRequest => ({
  target: 'amazon.nova-lite-v1:0',
  system: [{ type: 'text', text: manual, cache: '5m' }],
  messages: [{ role: 'user', content: question }],
  maxTokens: 50,
});

describe('prompt caching through Converse', () => {
  test('the first call writes the system prompt to the cache, the next ones read it', async () => {
    const first = await managedChat.chat(cachedTurn('What is section 1?'));
    expect(first.cache).toEqual({ read: 0, write5m: expect.any(Number), write1h: 0 });
    const written = first.cache!.write5m;
    expect(written).toBeGreaterThanOrEqual(1_000);

    const second = await managedChat.chat(cachedTurn('And section 2?'));
    expect(second.cache).toEqual({ read: written, write5m: 0, write1h: 0 });
    // The plain input is what is left of the prompt: the question and the template.
    expect(second.tokensIn).toBeLessThan(first.tokensIn + written);
  });

  test('a streamed call reports its cache usage in the metadata event', async () => {
    const request = cachedTurn('Streamed: section 3?');
    await managedChat.chat(request);
    const usage = [];
    for await (const event of managedChat.chatStream(request)) if (event.kind === 'usage') usage.push(event);
    expect(usage[0]?.cache?.read).toBeGreaterThanOrEqual(1_000);
  });

  test('a checkpoint before the minimum writes nothing', async () => {
    const reply = await managedChat.chat({ ...cachedTurn('Short?'), system: [{ type: 'text', text: 'Be brief.', cache: '5m' }] });
    expect(reply.cache).toBeUndefined();
  });

  test('a 1-hour TTL on a model that caches for 5 minutes only is a BadRequest naming the field', async () => {
    const request: ChatRequest = { ...cachedTurn('Long?'), system: [{ type: 'text', text: manual, cache: '1h' }] };
    await expect(managedChat.chat(request)).rejects.toThrow(BadRequest);
    await expect(managedChat.chat(request)).rejects.toMatchObject({ param: 'cache_control.ttl' });
  });

  test('a model without caching gets no cachePoint and answers as usual', async () => {
    const reply = await managedChat.chat({ ...cachedTurn('Hello?'), target: 'anthropic.claude-3-haiku-20240307-v1:0' });
    expect(reply.content.length).toBeGreaterThan(0);
    expect(reply.cache).toBeUndefined();
  });
});

describe('service tiers through Converse', () => {
  test.each(['flex', 'priority', 'default'] as const)('a model that offers every tier says %s served the call', async (tier) => {
    const reply = await managedChat.chat({ target: 'openai.gpt-oss-120b-1:0', messages: [{ role: 'user', content: 'Hi' }], serviceTier: tier });
    expect(reply.serviceTier).toBe(tier);
  });
});

describe('callCost (nano-dollars)', () => {
  const claude = { input_per_1k: 0.003, output_per_1k: 0.015, cache_read_per_1k: 0.0003, cache_write_per_1k: 0.00375, cache_write_1h_per_1k: 0.006 };

  test('prices plain input, cache reads, 5-minute and 1-hour writes each at its own price', () => {
    // 100 in x 0.003 + 20 out x 0.015 + 2000 read x 0.0003 + 1000 5m x 0.00375 + 1000 1h x 0.006 (per 1K)
    expect(callCost(claude, { tokensIn: 100, tokensOut: 20, cache: { read: 2000, write5m: 1000, write1h: 1000 } })).toBe(10_950_000);
  });

  test('a 1-hour write costs 1.6 times a 5-minute one, not the same', () => {
    const five = callCost(claude, { tokensIn: 0, tokensOut: 0, cache: { read: 0, write5m: 10_000, write1h: 0 } });
    const hour = callCost(claude, { tokensIn: 0, tokensOut: 0, cache: { read: 0, write5m: 0, write1h: 10_000 } });
    expect([five, hour]).toEqual([37_500_000, 60_000_000]);
  });

  test('a model with no cache prices pays the input price for reads and the premiums for writes', () => {
    const plain = { input_per_1k: 0.001, output_per_1k: 0.002 };
    expect(callCost(plain, { tokensIn: 0, tokensOut: 0, cache: { read: 1000, write5m: 1000, write1h: 1000 } })).toBe(4_250_000);
  });

  test('a tier scales the exact sum and takes it to the nano-dollar upwards once', () => {
    // 3 tokens at $0.00875 per 1M is 26.25 nano-dollars: 27 at Standard; at flex 13.125 -> 14 (not half of 27, rounded again)
    const novaMicroRead = { input_per_1k: 0.00000875, output_per_1k: 0 };
    expect([
      callCost(novaMicroRead, { tokensIn: 3, tokensOut: 0 }),
      callCost(novaMicroRead, { tokensIn: 3, tokensOut: 0, serviceTier: 'flex' }),
    ]).toEqual([27, 14]);
  });

  test('flex halves the whole call and priority adds 75 %', () => {
    const price = { input_per_1k: 0.00015, output_per_1k: 0.0006 };
    const usage = { tokensIn: 10_000, tokensOut: 10_000 };
    expect([
      callCost(price, usage),
      callCost(price, { ...usage, serviceTier: 'flex' }),
      callCost(price, { ...usage, serviceTier: 'priority' }),
    ]).toEqual([7_500_000, 3_750_000, 13_125_000]);
  });
});
