import { jest } from '@jest/globals';
import { nanosOf, usdOf } from '../../core/money';
import { handler as createKey } from '../../functions/keys/create';
import { handler as listKeys } from '../../functions/keys/list';
import { handler as listModels } from '../../functions/gateway/models';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as usageCurrent } from '../../functions/usage/current';
import { handler as updateUser } from '../../functions/admin/update-user';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { dedicatedResource, hostedResource, listed, managedResource, putResource, withModelFault } from './chat-fixtures';

jest.setTimeout(120_000);

/**
 * The chat fixtures write a resource's item alone; a deploy also writes its list index entry (GET
 * /v1/models lists by it) and its name guard (a call resolves its model's name by it).
 */

async function newKey(body: Record<string, unknown> = {}) {
  const owner = await makeUser('user');
  const res = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'k', ...body } });
  return { owner, key: res.body.key as string, id: res.body.id as string };
}

const complete = (key: string, body: Record<string, unknown>) =>
  call(completions as Handler, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
const hello = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'Hello there' }], ...extra });

let managed: Resource;
let hosted: Resource;
let dedicated: Resource;

beforeAll(async () => {
  [managed, hosted, dedicated] = await Promise.all([listed(managedResource()), listed(hostedResource()), listed(dedicatedResource())]);
});

describe('GET /v1/models', () => {
  test('lists the resources in service as OpenAI models named by their endpoint names', async () => {
    const { key } = await newKey();
    const res = await call(listModels as Handler, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    const ids = res.body.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining([managed.endpoint_name, hosted.endpoint_name, dedicated.endpoint_name]));
    expect(res.body.data.find((m: { id: string }) => m.id === hosted.endpoint_name)).toMatchObject({ object: 'model', owned_by: 'hosted' });
  });

  test('a key limited to some resources sees only those, and a name two platforms share is listed as platform/name', async () => {
    const shared = `shared-${managed.id.slice(0, 8)}`;
    const a = await listed(putResource({ type: 'managed', model_id: managed.model_id, endpoint_name: shared, name: shared }));
    const b = await listed(putResource({ type: 'hosted', model_id: hosted.model_id, endpoint_name: shared, name: shared }));
    const { key } = await newKey({ resource_ids: [a.id, b.id] });
    const res = await call(listModels as Handler, { headers: { authorization: `Bearer ${key}` } });
    expect(res.body.data.map((m: { id: string }) => m.id).sort()).toEqual([`hosted/${shared}`, `managed/${shared}`]);
    const answer = await complete(key, hello(`hosted/${shared}`));
    expect(answer.status).toBe(200);
    expect((await complete(key, hello(shared))).body.error.code).toBe('model_not_found');
  });
});

describe('POST /v1/chat/completions', () => {
  test.each([
    ['managed', () => managed],
    ['hosted', () => hosted],
    ['dedicated', () => dedicated],
  ])('answers in OpenAI’s shape on the %s platform, with its cost and a request id in headers', async (_platform, resource) => {
    const { key } = await newKey();
    const res = await complete(key, hello(resource().endpoint_name, { temperature: 0.2, max_tokens: 50 }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'chat.completion', model: resource().endpoint_name });
    expect(res.body.id).toMatch(/^chatcmpl-/);
    expect(res.body.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant' }, finish_reason: expect.stringMatching(/^(stop|length)$/) });
    expect(res.body.choices[0].message.content).toContain('Hello there');
    const usage = res.body.usage;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(res.headers['x-model-ops-cost-usd']).toMatch(/^\d+(\.\d{1,9})?$/);
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  test('on the HTTP API route (which cannot stream) stream: true answers the whole event stream at once, its usage chunk priced as the key spent', async () => {
    const { owner, key, id } = await newKey();
    const res = await complete(key, hello(hosted.endpoint_name, { stream: true, stream_options: { include_usage: true } }));
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toMatch(/^text\/event-stream/);
    expect(res.headers['x-model-ops-cost-usd']).toBeUndefined();
    const events = res.raw.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toContain('You said: "Hello there"');
    const usage = chunks.at(-1).usage;
    expect(usage.cost_usd).toBeGreaterThan(0);
    const keys = await call(listKeys as Handler, { token: owner.token });
    expect(keys.body.keys.find((k: { id: string }) => k.id === id).spent_usd).toBe(usage.cost_usd);
  });

  test('a call counts for the caller and for the key, and its cost is the key’s spend this month', async () => {
    const { owner, key, id } = await newKey();
    const res = await complete(key, hello(managed.endpoint_name));
    const cost = Number(res.headers['x-model-ops-cost-usd']);
    expect(cost).toBeGreaterThan(0);
    const mine = await call(usageCurrent as Handler, { token: owner.token });
    expect(mine.body.mtd).toMatchObject({ requests: 1, cost_usd: cost, tokens_total: res.body.usage.total_tokens });
    const keys = await call(listKeys as Handler, { token: owner.token });
    expect(keys.body.keys.find((k: { id: string }) => k.id === id).spent_usd).toBe(cost);
  });

  test('an unknown model is 404 model_not_found, and a bad request 400 naming its field', async () => {
    const { key } = await newKey();
    const missing = await complete(key, hello('no-such-model'));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
    const bad = await complete(key, { model: managed.endpoint_name, messages: [{ role: 'user', content: 'x' }], temperature: 7 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'temperature' });
    expect((await complete(key, { model: managed.endpoint_name, messages: [] })).status).toBe(400);
    expect((await complete(key, { model: managed.endpoint_name, messages: [{ role: 'system', content: 'only' }] })).status).toBe(400);
  });

  test('an OpenAI field the gateway does not support yet is 400 unsupported_parameter naming it, and a misspelt field an unknown one', async () => {
    const { key } = await newKey();
    const logprobs = await complete(key, hello(managed.endpoint_name, { logprobs: true }));
    expect(logprobs.status).toBe(400);
    expect(logprobs.body).toEqual({
      error: {
        message: "Unsupported parameter: 'logprobs' is not supported by this gateway yet",
        type: 'invalid_request_error',
        code: 'unsupported_parameter',
        param: 'logprobs',
      },
    });
    const typo = await complete(key, hello(managed.endpoint_name, { tols: [] }));
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ message: expect.stringMatching(/^Unknown field 'tols'/), code: null, param: 'tols' });
  });

  test('a platform failure is 502 in OpenAI’s shape, counts nothing and spends nothing', async () => {
    const { owner, key, id } = await newKey({ monthly_budget_usd: 1 });
    const res = await withModelFault(managed, () => complete(key, hello(managed.endpoint_name)));
    expect(res.status).toBe(502);
    expect(res.body.error.type).toBe('api_error');
    const mine = await call(usageCurrent as Handler, { token: owner.token });
    expect(mine.body.mtd.requests).toBe(0);
    const keys = await call(listKeys as Handler, { token: owner.token });
    expect(keys.body.keys.find((k: { id: string }) => k.id === id).spent_usd).toBe(0);
  });

  test('a key whose budget cannot cover a call is refused with 429 budget_exceeded before the model is asked', async () => {
    const { owner, key } = await newKey({ monthly_budget_usd: 0.000001 });
    const res = await complete(key, hello(managed.endpoint_name));
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'budget_exceeded', type: 'insufficient_quota' });
    expect((await call(usageCurrent as Handler, { token: owner.token })).body.mtd.requests).toBe(0);
  });

  test('200 concurrent calls against a budget: the spend never passes it and equals the sum of the answered calls', async () => {
    // One call costs about $0.0003 at most (max_tokens 100 on the managed model's price): room for about 20.
    const { owner, key, id } = await newKey({ monthly_budget_usd: 0.005 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => complete(key, hello(managed.endpoint_name, { max_tokens: 100, user: `c${i}` }))),
    );
    const answered = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(answered.length + refused.length).toBe(200);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    const sum = usdOf(answered.reduce((n, r) => n + nanosOf(r.headers['x-model-ops-cost-usd'] ?? ''), 0));
    const keys = await call(listKeys as Handler, { token: owner.token });
    const spent = keys.body.keys.find((k: { id: string }) => k.id === id).spent_usd;
    expect(spent).toBe(sum);
    expect(spent).toBeLessThanOrEqual(0.005);
    const mine = await call(usageCurrent as Handler, { token: owner.token });
    expect(mine.body.mtd.requests).toBe(answered.length);
    expect(mine.body.mtd.cost_usd).toBe(sum);
  });
});

describe('usage of a key (GET /api/usage/current?keyId=)', () => {
  test('counts the key’s calls for its owner and admins; another user gets 404', async () => {
    const { owner, key, id } = await newKey();
    const res = await complete(key, hello(hosted.endpoint_name));
    const cost = Number(res.headers['x-model-ops-cost-usd']);
    const mine = await call(usageCurrent as Handler, { token: owner.token, query: { keyId: id } });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ scope: 'key', mtd: { requests: 1, cost_usd: cost }, last24h: { requests: 1, cost_usd: cost } });
    const admin = await makeUser('admin');
    expect((await call(usageCurrent as Handler, { token: admin.token, query: { keyId: id } })).body.mtd.requests).toBe(1);
    const stranger = await makeUser('user');
    expect((await call(usageCurrent as Handler, { token: stranger.token, query: { keyId: id } })).status).toBe(404);
  });
});

describe('the owner’s budget (PATCH /api/admin/users/{id} monthly_budget_usd)', () => {
  test('covers all of the owner’s keys: a spent user budget refuses every key with 429, and raising it lets calls through', async () => {
    const { owner, key } = await newKey();
    const superAdmin = await makeUser('super_admin');
    const patch = (monthly_budget_usd: number | null) =>
      call(updateUser as Handler, {
        method: 'PATCH',
        token: superAdmin.token,
        pathParameters: { userId: owner.user.id },
        body: { monthly_budget_usd },
      });
    const set = await patch(0.000001);
    expect(set.status).toBe(200);
    expect(set.body.user.monthly_budget_usd).toBe(0.000001);
    const refused = await complete(key, hello(managed.endpoint_name));
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/^Your monthly user budget cannot cover this request/);
    await patch(1);
    expect((await complete(key, hello(managed.endpoint_name))).status).toBe(200);
    await patch(null);
    expect((await complete(key, hello(managed.endpoint_name))).status).toBe(200);
  });

  test("a budget set after the owner's calls starts from them: exactly what they spent leaves nothing to spend", async () => {
    const { owner, key } = await newKey();
    const superAdmin = await makeUser('super_admin');
    for (let i = 0; i < 2; i++) expect((await complete(key, hello(managed.endpoint_name))).status).toBe(200);
    const { cost_usd } = (await call(usageCurrent as Handler, { token: owner.token })).body.mtd;
    expect(cost_usd).toBeGreaterThan(0);
    const set = await call(updateUser as Handler, {
      method: 'PATCH',
      token: superAdmin.token,
      pathParameters: { userId: owner.user.id },
      body: { monthly_budget_usd: cost_usd },
    });
    expect(set.status).toBe(200);
    const refused = await complete(key, hello(managed.endpoint_name));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
  });
});
