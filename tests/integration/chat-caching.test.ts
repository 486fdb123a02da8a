/**
 * The spec's session chat caches its history where the model caches prompts (lib/chat/caching.ts):
 * a checkpoint after the history once it reaches the model's minimum, another where the previous turn
 * put its own, so a conversation writes each part of its history once and reads it after. Against the
 * emulator, which reports Converse's cacheReadInputTokens / cacheWriteInputTokens as Bedrock does.
 */
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as getThread } from '../../functions/chat/thread-get';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { MANAGED_MODEL, listed, managedResource, newConversation, usProfileResource } from './chat-fixtures';

jest.setTimeout(60_000);

const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
/**
 * The shipped prices of Sonnet 4.5 through its US profile (lib/pricing/defaults.ts), in nano-dollars a
 * token: input, output, cache read, 5-minute cache write. Each is a whole number, so every figure is exact.
 */
const NANOS = { input: 3_300, output: 16_500, read: 330, write: 4_125 };

let sonnet: Resource;
let haiku3: Resource;
let person: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  [sonnet, haiku3, person] = await Promise.all([
    listed(usProfileResource(SONNET, 'Claude Sonnet 4.5')),
    managedResource(MANAGED_MODEL),
    makeUser('user'),
  ]);
});

/** A message long enough (about 1,500 tokens) that a history holding it passes Sonnet 4.5's 1,024-token minimum. */
const longMessage = () => `${randomUUID()} ${'Please keep this whole paragraph in mind for the rest of our talk. '.repeat(90)}`;

async function conversation(resource: Resource) {
  const conversationId = await newConversation(person.token, resource);
  let threadId: string | undefined;
  return async (message: string) => {
    const res = await call(postThread as Handler, {
      method: 'POST',
      token: person.token,
      body: { message, conversationId, resourceId: resource.id, ...(threadId && { threadId }) },
    });
    expect(res.status).toBe(200);
    threadId = res.body.threadId;
    return { reply: res.body.messages[1], threadId: res.body.threadId as string, conversationId };
  };
}

const nanos = (usd: number) => Math.round(usd * 1e9);

test('a long thread writes its history to the cache once, then reads it, each reply priced exactly and its figures shown', async () => {
  const say = await conversation(sonnet);
  // No history yet: nothing to cache.
  const first = (await say(longMessage())).reply;
  expect(first).not.toHaveProperty('cache_read_tokens');

  // The history (the long message and its reply) passes the minimum: written, nothing read.
  const second = (await say('And what now?')).reply;
  expect(second.cache_read_tokens).toBe(0);
  expect(second.cache_write_tokens).toBeGreaterThanOrEqual(1_024);
  expect(nanos(second.cache_cost_usd)).toBe(second.cache_write_tokens * NANOS.write);
  expect(nanos(second.cost_usd)).toBe(second.tokens_in * NANOS.input + second.tokens_out * NANOS.output + second.cache_write_tokens * NANOS.write);
  expect(second.tokens_total).toBe(second.tokens_in + second.tokens_out);

  // The previous turn's prefix is read back; only what the last turn added is written.
  const { reply: third, threadId, conversationId } = await say('One more thing.');
  expect(third.cache_read_tokens).toBe(second.cache_write_tokens);
  expect(third.cache_write_tokens).toBeGreaterThan(0);
  expect(third.cache_write_tokens).toBeLessThan(second.cache_write_tokens);
  const cacheNanos = third.cache_read_tokens * NANOS.read + third.cache_write_tokens * NANOS.write;
  expect(nanos(third.cache_cost_usd)).toBe(cacheNanos);
  expect(nanos(third.cost_usd)).toBe(third.tokens_in * NANOS.input + third.tokens_out * NANOS.output + cacheNanos);

  // The thread's page shows the same figures, read back from the stored turns.
  const page = await call(getThread as Handler, { path: '/api/chat/thread', token: person.token, query: { threadId, conversationId } });
  expect(page.body.messages.filter((m: { role: string }) => m.role === 'assistant')).toEqual([first, second, third]);
});

test("a history under the model's minimum asks for no caching: the reply carries no cache figures", async () => {
  const say = await conversation(sonnet);
  await say(`${randomUUID()} A short question.`);
  const { reply } = await say('And a short follow-up.');
  expect(reply).not.toHaveProperty('cache_read_tokens');
  expect(reply).not.toHaveProperty('cache_write_tokens');
  expect(nanos(reply.cost_usd)).toBe(reply.tokens_in * NANOS.input + reply.tokens_out * NANOS.output);
});

test('a model that does not cache prompts gets no checkpoint, however long its history', async () => {
  const say = await conversation(haiku3);
  await say(longMessage());
  const { reply } = await say('And what now?');
  expect(reply.tokens_in).toBeGreaterThan(1_024);
  expect(reply).not.toHaveProperty('cache_read_tokens');
});
