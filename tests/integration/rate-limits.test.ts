/**
 * Rate limits (issue 25 item 3): rpm_limit and tpm_limit of keys and teams, counted in one item per
 * limited level and minute, held in the same one conditional write as the budgets, exact under
 * concurrency, and told to the caller in OpenAI's x-ratelimit-* headers on every /v1 answer.
 */
import { jest } from '@jest/globals';
import { handler as listModels } from '../../functions/gateway/models';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as updateUser } from '../../functions/admin/update-user';
import { reportedRates } from '../../lib/budgets/rate-limits';
import { prepareCall, releaseCall, type Payer } from '../../lib/calls/metered';
import { getApiKeyRecord } from '../../tables/keys';
import { minuteOf, readRateCounts } from '../../tables/rates';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { listed, managedResource, newConversation, withModelFault } from './chat-fixtures';
import { completeOn, createTeam, inOneMinute, joinTeam, keyOf, type Caller } from './levels-fixtures';

jest.setTimeout(180_000);

let admin: Caller;
let superAdmin: Caller;
let resource: Resource;

beforeAll(async () => {
  [admin, superAdmin, resource] = await Promise.all([makeUser('admin'), makeUser('super_admin'), listed(managedResource())]);
});

const complete = completeOn(() => resource);
const models = (key: string) => call(listModels as Handler, { headers: { authorization: `Bearer ${key}` } });

async function team(body: Record<string, unknown>, ...members: Caller[]) {
  const created = await createTeam(admin, 'rates', body);
  for (const m of members) await joinTeam(admin, created.id, m);
  return created;
}

const header = (r: { headers: Record<string, string> }, name: string) => r.headers[name];

describe('requests per minute', () => {
  test('a key with rpm_limit 3: three calls pass, counting down x-ratelimit-remaining-requests; the fourth is 429 rate_limit_exceeded with Retry-After', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const key = await keyOf(owner, { rpm_limit: 3 });
    for (const remaining of [2, 1, 0]) {
      const res = await complete(key.secret);
      expect(res.status).toBe(200);
      expect(header(res, 'x-ratelimit-limit-requests')).toBe('3');
      expect(header(res, 'x-ratelimit-remaining-requests')).toBe(String(remaining));
      expect(header(res, 'x-ratelimit-reset-requests')).toMatch(/^\d+(\.\d+)?s$|^\d+ms$/);
    }
    const refused = await complete(key.secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests' });
    expect(refused.body.error.message).toMatch(/^Rate limit reached for this API key on requests per minute \(RPM\): Limit 3, Used 3/);
    expect(Number(header(refused, 'Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(Number(header(refused, 'Retry-After'))).toBeLessThanOrEqual(60);
    expect(header(refused, 'x-ratelimit-remaining-requests')).toBe('0');
  });

  test('a burst of 30 calls arriving together against rpm_limit 10: exactly 10 pass', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const key = await keyOf(owner, { rpm_limit: 10 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => complete(key.secret, { user: `b${i}` })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429 && r.body.error.code === 'rate_limit_exceeded')).toHaveLength(20);
  });

  test("a team's rpm_limit is shared by its members' team keys, and held in one write with their budgets: a burst of 20 lets exactly 4 through", async () => {
    await inOneMinute();
    const [a, b] = await Promise.all([makeUser('user'), makeUser('user')]);
    const t = await team({ rpm_limit: 4, monthly_budget_usd: 100 }, a, b);
    const [ka, kb] = await Promise.all([keyOf(a, { team_id: t.id, monthly_budget_usd: 100 }), keyOf(b, { team_id: t.id })]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => complete(i % 2 ? ka.secret : kb.secret, { user: `t${i}` })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    const refused = results.find((r) => r.status === 429);
    expect(refused?.body.error.message).toMatch(new RegExp(`^Rate limit reached for team '${t.name}' on requests per minute`));
  });

  test('a call refused by a budget takes nothing from the window (all or none): once the budget allows, the full rpm is there', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const t = await team({ rpm_limit: 2, monthly_budget_usd: 0.000001 }, owner);
    const key = await keyOf(owner, { team_id: t.id, rpm_limit: 5 });
    for (let i = 0; i < 3; i++) expect((await complete(key.secret)).body.error.code).toBe('budget_exceeded');
    const patched = await call((await import('../../functions/teams/update')).handler as Handler, {
      method: 'PATCH',
      token: admin.token,
      pathParameters: { teamId: t.id },
      body: { monthly_budget_usd: 100 },
    });
    expect(patched.status).toBe(200);
    expect((await complete(key.secret)).status).toBe(200);
    expect((await complete(key.secret)).status).toBe(200);
    expect((await complete(key.secret)).body.error.code).toBe('rate_limit_exceeded');
  });
});

describe('tokens per minute', () => {
  test('a call holds its token bound (prompt bound + max_tokens) and is settled to its true tokens: the window keeps exactly what the answered calls used', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const key = await keyOf(owner, { tpm_limit: 1000 });
    const res = await complete(key.secret);
    expect(res.status).toBe(200);
    expect(header(res, 'x-ratelimit-limit-tokens')).toBe('1000');
    const held = 1000 - Number(header(res, 'x-ratelimit-remaining-tokens'));
    // The bound: "Hello there" (11 bytes) plus the template's allowance, plus max_tokens 100.
    expect(held).toBeGreaterThanOrEqual(100 + 11);
    await drainStream();
    const [count] = await readRateCounts([{ kind: 'key', id: key.id }], minuteOf(new Date()));
    expect(count).toEqual({ requests: 1, tokens: res.body.usage.total_tokens });
    expect(res.body.usage.total_tokens).toBeLessThan(held);
  });

  test('concurrent calls never hold more than tpm_limit: with room for two bounds, two of ten pass', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    // One bound is max_tokens 100 + "Hello there" 11 + 2 x 10 + 20 (the template's allowance) = 151 tokens: two fit in 320, three do not.
    const key = await keyOf(owner, { tpm_limit: 320 });
    const results = await Promise.all(Array.from({ length: 10 }, () => complete(key.secret)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    const refused = results.find((r) => r.status === 429);
    expect(refused?.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'tokens' });
    expect(refused?.headers['x-ratelimit-remaining-tokens']).toBe('0');
  });

  test('a request whose bound alone is above tpm_limit is 429 saying it is too large, and holds nothing', async () => {
    const owner = await makeUser('user');
    const key = await keyOf(owner, { tpm_limit: 50 });
    const res = await complete(key.secret);
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(/^Request too large for this API key on tokens per minute \(TPM\): Limit 50/);
    const [count] = await readRateCounts([{ kind: 'key', id: key.id }], minuteOf(new Date()));
    expect(count).toEqual({ requests: 0, tokens: 0 });
  });
});

describe('the x-ratelimit headers', () => {
  test('are on every /v1 answer of a limited caller: the model list and a refused body too, reading the window as it stands', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const key = await keyOf(owner, { rpm_limit: 7, tpm_limit: 5000 });
    expect((await complete(key.secret)).status).toBe(200);
    const listing = await models(key.secret);
    expect(listing.status).toBe(200);
    expect(listing.headers).toMatchObject({
      'x-ratelimit-limit-requests': '7',
      'x-ratelimit-remaining-requests': '6',
      'x-ratelimit-limit-tokens': '5000',
    });
    const bad = await complete(key.secret, { temperature: 7 });
    expect(bad.status).toBe(400);
    expect(bad.headers['x-ratelimit-remaining-requests']).toBe('6');
  });

  test('a caller with no limit anywhere gets none (nothing to report)', async () => {
    const owner = await makeUser('user');
    const key = await keyOf(owner);
    const res = await complete(key.secret);
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  test("a personal key of a member of a limited team reports the team's window, the tighter of the two", async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    await team({ rpm_limit: 2 }, owner);
    const key = await keyOf(owner, { rpm_limit: 50 });
    const res = await complete(key.secret);
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '1' });
  });
});

describe('the rate report comes back with the call', () => {
  test('a metered call returns the report of its holds with the prepared call, and its refusal carries it on the 429', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const created = await keyOf(owner, { rpm_limit: 1, tpm_limit: 1000 });
    const payer: Payer = { user: owner.user, key: await getApiKeyRecord(created.id), memberships: [] };
    const request = { messages: [{ role: 'user' as const, content: 'Hello there' }], maxTokens: 100 };
    const held = await prepareCall({ payer, resource, request });
    expect(await held.rateReport).toMatchObject({ requests: { limit: 1, remaining: 0 }, tokens: { limit: 1000 } });
    await releaseCall(held);
    const refused = await prepareCall({ payer, resource, request }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(await reportedRates(refused)).toMatchObject({ requests: { limit: 1, remaining: 0 } });
  });

  test('a call the platform fails after its holds tells the windows as its holds found them, not as they are once given back', async () => {
    await inOneMinute();
    const owner = await makeUser('user');
    const key = await keyOf(owner, { rpm_limit: 5, tpm_limit: 5000 });
    const failed = await withModelFault(resource, () => complete(key.secret));
    expect(failed.status).toBe(502);
    expect(header(failed, 'x-ratelimit-remaining-requests')).toBe('4');
    // Its token bound (the prompt's bound plus max_tokens 100) was held when the call was let through.
    expect(5000 - Number(header(failed, 'x-ratelimit-remaining-tokens'))).toBeGreaterThan(100);
    // Given back since: the windows as they stand keep only its request.
    expect((await models(key.secret)).headers).toMatchObject({ 'x-ratelimit-remaining-requests': '4', 'x-ratelimit-remaining-tokens': '5000' });
  });
});

describe('session chat', () => {
  test("a member's chat turns count against their team's rpm_limit: over it, 429 in the thread shape with Retry-After", async () => {
    await inOneMinute();
    const member = await makeUser('user');
    const t = await team({ rpm_limit: 1 }, member);
    const conversationId = await newConversation(member.token, resource);
    const turn = () =>
      call(postThread as Handler, { method: 'POST', token: member.token, body: { message: 'Hello there', conversationId, resourceId: resource.id } });
    expect((await turn()).status).toBe(200);
    const refused = await turn();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, threadId: '', messages: [] });
    expect(refused.body.error).toMatch(new RegExp(`^Rate limit reached for team '${t.name}'`));
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  });

  test('a user budget and a team limit are held together for a chat turn (one write), and settled in its transaction', async () => {
    await inOneMinute();
    const member = await makeUser('user');
    const t = await team({ tpm_limit: 100_000 }, member);
    await call(updateUser as Handler, {
      method: 'PATCH',
      token: superAdmin.token,
      pathParameters: { userId: member.user.id },
      body: { monthly_budget_usd: 5 },
    });
    const conversationId = await newConversation(member.token, resource);
    const res = await call(postThread as Handler, {
      method: 'POST',
      token: member.token,
      body: { message: 'Hello there', conversationId, resourceId: resource.id },
    });
    expect(res.status).toBe(200);
    const [count] = await readRateCounts([{ kind: 'team', id: t.id }], minuteOf(new Date()));
    const tokens = res.body.messages.at(-1).metadata?.tokens_total ?? res.body.messages.at(-1).tokens_total;
    expect(count).toEqual({ requests: 1, tokens });
  });
});
