import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Handler } from '../helpers/invoke';

// Every turn here is one user's, so their writes meet on the user's hour items and retry: in AWS each
// of the 200 would be a Lambda of its own with the deployed 29 s, 12 s and 10 s; here they queue for
// one process, one emulator and one DynamoDB Local, so the limits are those of the queue (set before
// anything reads the configuration, hence the dynamic imports, one after the other).
process.env.UPSTREAM_TIMEOUT_MS = '60000';
process.env.TURN_WRITE_RETRY_MS = '60000';
const REMAINING_MS = 120_000;
const { handler: postThread } = await import('../../functions/chat/thread-post');
const { handler: getThread } = await import('../../functions/chat/thread-get');
const { handler: usageCurrent } = await import('../../functions/usage/current');
const { threadPut } = await import('../../tables/conversations');
const { transactWrite } = await import('../../tables/transactions');
const { call } = await import('../helpers/invoke');
const { makeUser } = await import('../helpers/users');
const { managedResource, newConversation } = await import('./chat-fixtures');

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

test('50 concurrent turns into one thread leave exactly 100 messages, in a total order, and 50 counted requests', async () => {
  const owner = await makeUser('user');
  const resource = await managedResource();
  const conversationId = await newConversation(owner.token, resource);
  // An empty thread to start from, so every message in it comes from the 50 concurrent turns.
  const threadId = randomUUID();
  await transactWrite([threadPut({ conversationId, threadId, userId: owner.user.id, at: new Date().toISOString() })]);

  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      call(postThread as Handler, {
        method: 'POST',
        token: owner.token,
        body: { message: `turn ${i}`, conversationId, resourceId: resource.id, threadId },
        remainingMs: REMAINING_MS,
      }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));

  const thread = await call(getThread as Handler, { token: owner.token, query: { threadId, conversationId, limit: '1000' } });
  const messages = thread.body.messages as { role: string; content: string; timestamp: string }[];
  expect(messages).toHaveLength(100);
  expect(thread.body.nextCursor).toBeNull();
  // Every turn's user message is followed by its own reply, and every turn is there once.
  for (let i = 0; i < 100; i += 2) {
    expect(messages[i]?.role).toBe('user');
    expect(messages[i + 1]?.role).toBe('assistant');
    expect(messages[i + 1]?.content).toContain(`You said: "${messages[i]?.content}"`);
  }
  const userTexts = messages.filter((m) => m.role === 'user').map((m) => m.content);
  expect(new Set(userTexts)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `turn ${i}`)));
  const userTimes = messages.filter((m) => m.role === 'user').map((m) => m.timestamp);
  expect([...userTimes].sort()).toEqual(userTimes);

  const usage = await call(usageCurrent as Handler, { token: owner.token, query: { conversationId } });
  expect(usage.body.mtd.requests).toBe(50);
  expect(usage.body.last24h.requests).toBe(50);
  const tokens = results.reduce((n, r) => n + r.body.messages[1].tokens_total, 0);
  expect(usage.body.mtd.tokens_total).toBe(tokens);
}, 180_000);

test('200 concurrent turns across 10 threads: every thread complete, nothing lost or duplicated, usage exact', async () => {
  const owner = await makeUser('user');
  const resource = await managedResource();
  const conversationId = await newConversation(owner.token, resource);
  const threadIds = Array.from({ length: 10 }, () => randomUUID());
  const at = new Date().toISOString();
  for (const threadId of threadIds) {
    await transactWrite([threadPut({ conversationId, threadId, userId: owner.user.id, at })]);
  }

  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      call(postThread as Handler, {
        method: 'POST',
        token: owner.token,
        body: { message: `t${i % 10} turn ${i}`, conversationId, resourceId: resource.id, threadId: threadIds[i % 10] },
        remainingMs: REMAINING_MS,
      }),
    ),
  );
  expect(results.filter((r) => r.status !== 200).map((r) => r.raw)).toEqual([]);

  for (const [t, threadId] of threadIds.entries()) {
    const thread = await call(getThread as Handler, { token: owner.token, query: { threadId, conversationId, limit: '1000' } });
    const messages = thread.body.messages as { role: string; content: string }[];
    expect(messages).toHaveLength(40);
    const expected = Array.from({ length: 200 }, (_, i) => i)
      .filter((i) => i % 10 === t)
      .map((i) => `t${t} turn ${i}`);
    expect(
      messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .sort(),
    ).toEqual(expected.sort());
  }

  const usage = await call(usageCurrent as Handler, { token: owner.token, query: { conversationId } });
  expect(usage.body.mtd.requests).toBe(200);
  const tokens = results.reduce((n, r) => n + r.body.messages[1].tokens_total, 0);
  expect(usage.body.mtd.tokens_total).toBe(tokens);
  expect(usage.body.last24h.tokens_total).toBe(tokens);
}, 300_000);
