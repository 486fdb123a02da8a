import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { usdOf } from '../../core/money';
import { handler as usageCurrent } from '../../functions/usage/current';
import { DEFAULT_TOKEN_PRICES } from '../../lib/pricing/defaults';
import { tokenCost } from '../../lib/pricing/service';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { HOSTED_MODEL, MANAGED_MODEL, dedicatedResource, hostedResource, managedResource, newConversation, ok } from './chat-fixtures';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

const usage = (token: string, query: Record<string, string> = {}) => call(usageCurrent as Handler, { token, query });
const ZERO = { cost_usd: 0, tokens_in: 0, tokens_out: 0, tokens_total: 0, requests: 0 };

test('a caller with no chat has zero figures with exactly the fields of 2.5', async () => {
  const { token } = await makeUser('user');
  const res = await usage(token);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: true, scope: 'user', mtd: ZERO, last24h: ZERO, hourly: expect.any(Array) });
  expect(res.body.hourly).toHaveLength(25);
  for (const hour of res.body.hourly) expect(hour).toEqual({ hour: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:00:00Z$/), ...ZERO });
});

test("without conversationId the caller's figures add up every conversation, thread and legacy, priced per token", async () => {
  const { token } = await makeUser('user');
  const managed = await managedResource();
  const hosted = await hostedResource();
  const dedicated = await dedicatedResource();
  const c1 = await newConversation(token, managed);
  const c2 = await newConversation(token, hosted);
  const turns = [
    await call(postThread as Handler, { method: 'POST', token, body: { message: 'managed thread', conversationId: c1, resourceId: managed.id } }),
    await call(postThread as Handler, { method: 'POST', token, body: { message: 'hosted thread', conversationId: c2, resourceId: hosted.id } }),
    await call(postThread as Handler, { method: 'POST', token, body: { message: 'dedicated thread', conversationId: c2, resourceId: dedicated.id } }),
  ];
  const legacy = await call(postLegacy as Handler, {
    method: 'POST',
    token,
    body: { message: 'managed legacy', conversationId: c1, resourceId: managed.id },
  });
  expect([...turns, legacy].map((r) => r.status)).toEqual([200, 200, 200, 200]);

  const [m, h, d] = turns.map((t) => t.body.messages[1]);
  const legacyTokens = legacy.body.metadata.tokens_used;
  const res = await usage(token);
  expect(res.body.mtd.requests).toBe(4);
  expect(res.body.mtd.tokens_total).toBe(m.tokens_total + h.tokens_total + d.tokens_total + legacyTokens);
  const hostedCost = usdOf(tokenCost(DEFAULT_TOKEN_PRICES.hosted[HOSTED_MODEL]!, h.tokens_in, h.tokens_out));
  const managedThreadCost = usdOf(tokenCost(DEFAULT_TOKEN_PRICES.managed[MANAGED_MODEL]!, m.tokens_in, m.tokens_out));
  const conversationOne = await usage(token, { conversationId: c1 });
  const conversationTwo = await usage(token, { conversationId: c2 });
  expect(conversationOne.body.scope).toBe('conversation');
  expect(conversationOne.body.mtd.requests).toBe(2);
  expect(conversationTwo.body.mtd.requests).toBe(2);
  // Dedicated turns cost nothing per token; the hosted turn is priced at its own rate.
  expect(hostedCost).toBeGreaterThan(0);
  expect(conversationTwo.body.mtd.cost_usd).toBeCloseTo(hostedCost, 6);
  expect(conversationOne.body.mtd.cost_usd).toBeGreaterThan(managedThreadCost);
  expect(res.body.mtd.cost_usd).toBeCloseTo(conversationOne.body.mtd.cost_usd + hostedCost, 6);
  expect(res.body.last24h).toEqual(res.body.mtd);
  // The hours add up to the last 24 hours (all four turns are in the last hour or two of them).
  const hours = res.body.hourly as { requests: number; tokens_total: number; cost_usd: number }[];
  expect(hours.reduce((n, h) => n + h.requests, 0)).toBe(4);
  expect(hours.slice(0, -2).every((h) => h.requests === 0)).toBe(true);
  expect(hours.reduce((n, h) => n + h.tokens_total, 0)).toBe(res.body.last24h.tokens_total);
  expect(hours.reduce((n, h) => n + h.cost_usd, 0)).toBeCloseTo(res.body.last24h.cost_usd, 6);
});

describe('scope=all', () => {
  test('gives an admin the whole service once the stream is drained: every turn of this test, counted once', async () => {
    const admin = await makeUser('admin');
    const user = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(user.token, resource);
    await drainStream();
    const before = (await usage(admin.token, { scope: 'all' })).body;
    const turn = await ok(
      call(postThread as Handler, { method: 'POST', token: user.token, body: { message: 'hi', conversationId, resourceId: resource.id } }),
    );
    await drainStream();
    const res = await usage(admin.token, { scope: 'all' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('all');
    expect(res.body.mtd.requests).toBe(before.mtd.requests + 1);
    expect(res.body.last24h.tokens_total).toBe(before.last24h.tokens_total + turn.body.messages[1].tokens_total);
  });

  test('is 403 for a user', async () => {
    const { token } = await makeUser('user');
    const res = await usage(token, { scope: 'all' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: 'Admin privileges required' });
  });

  test('together with a conversationId is 400', async () => {
    const { token } = await makeUser('admin');
    const res = await usage(token, { scope: 'all', conversationId: randomUUID() });
    expect(res.status).toBe(400);
  });
});

test('an unknown conversation is 404 and a malformed id 400', async () => {
  const { token } = await makeUser('user');
  expect((await usage(token, { conversationId: randomUUID() })).body).toEqual({ success: false, error: 'Conversation not found' });
  const bad = await usage(token, { conversationId: 'USAGE#ALL' });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toContain("Invalid field 'conversationId'");
});
