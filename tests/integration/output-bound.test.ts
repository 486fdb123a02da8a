/**
 * A bound on every call (issue 31, section 6): a call that names no max_tokens is sent the output
 * bound its budget hold reserved (the smaller of the model's maximum and CHAT_MAX_OUTPUT_TOKENS), so
 * a model that would write to its own maximum (the emulator's "at length" answer: 4,096 tokens) stops
 * there, and concurrent calls never take a budget past its limit.
 */
import { jest } from '@jest/globals';
import { config } from '../../core/config';
import { nanosOf, usdOf } from '../../core/money';
import { handler as listKeys } from '../../functions/keys/list';
import { monthOf, readSpend } from '../../tables/budgets';
import type { Resource } from '../../tables/resources';
import { EMULATED_MAX_OUTPUT_TOKENS } from '../../local/emulator/chat';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { hostedResource, listed, managedResource } from './chat-fixtures';
import { completeOn, keyOf } from './levels-fixtures';

jest.setTimeout(180_000);

let managed: Resource;
let hosted: Resource;

beforeAll(async () => {
  [managed, hosted] = await Promise.all([listed(managedResource()), listed(hostedResource())]);
});

const atLength = { messages: [{ role: 'user', content: 'Tell me about budgets at length.' }], max_tokens: undefined };

test('the bound is below what the emulated model writes unbounded, so the tests below mean something', () => {
  expect(config.chat.maxOutputTokens).toBeLessThan(EMULATED_MAX_OUTPUT_TOKENS);
});

test.each([
  ['managed', () => managed],
  ['hosted', () => hosted],
])('a %s call without max_tokens is cut at the bound it reserved (finish_reason length)', async (_platform, resource) => {
  const owner = await makeUser('user');
  const key = await keyOf(owner, { monthly_budget_usd: 1 });
  const res = await completeOn(resource)(key.secret, atLength);
  expect(res.status).toBe(200);
  expect(res.body.choices[0].finish_reason).toBe('length');
  expect(res.body.usage.completion_tokens).toBe(config.chat.maxOutputTokens);
});

test('50 concurrent calls without max_tokens under a small key budget: the spend never passes the budget, and equals the answered calls', async () => {
  const owner = await makeUser('user');
  // Claude 3 Haiku: a call bounded at 1,024 output tokens costs at most about $0.0013; unbounded, $0.0051.
  const budget = 0.005;
  const key = await keyOf(owner, { monthly_budget_usd: budget });
  const complete = completeOn(() => managed);
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => complete(key.secret, { ...atLength, user: `c${i}` })));
  const answered = results.filter((r) => r.status === 200);
  expect(answered.length + results.filter((r) => r.status === 429).length).toBe(50);
  expect(answered.length).toBeGreaterThan(0);
  for (const r of answered) expect(r.body.usage.completion_tokens).toBeLessThanOrEqual(config.chat.maxOutputTokens);

  await drainStream();
  const spend = (await readSpend([{ kind: 'key', id: key.id }], monthOf(new Date())))({ kind: 'key', id: key.id });
  expect(spend.reserved).toBe(0);
  expect(spend.spent).toBeLessThanOrEqual(nanosOf(budget));
  expect(spend.spent).toBe(answered.reduce((n, r) => n + nanosOf(r.headers['x-model-ops-cost-usd'] ?? ''), 0));
  const listed_ = await call(listKeys as Handler, { token: owner.token });
  expect(listed_.body.keys.find((k: { id: string }) => k.id === key.id).spent_usd).toBe(usdOf(spend.spent));
});
