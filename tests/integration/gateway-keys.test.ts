import { handler as createKey } from '../../functions/keys/create';
import { handler as listKeys } from '../../functions/keys/list';
import { handler as updateKey } from '../../functions/keys/update';
import { handler as revokeKey } from '../../functions/keys/revoke';
import { handler as listAudit } from '../../functions/admin/list-audit';
import { handler as listModels } from '../../functions/gateway/models';
import { handler as usageCurrent } from '../../functions/usage/current';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as messages } from '../../functions/gateway/messages';
import { DbMeter } from '../../bench/harness';
import { db } from '../../tables/client';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

const create = (token: string, body: Record<string, unknown>) => call(createKey as Handler, { method: 'POST', token, body });
const models = (key: string) => call(listModels as Handler, { headers: { authorization: `Bearer ${key}` } });

describe('API keys', () => {
  test('a new key is answered once with its secret (mo_ + 43 characters) and its prefix, with no budget or expiry unless asked', async () => {
    const { token } = await makeUser('user');
    const res = await create(token, { name: 'laptop' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, name: 'laptop', expires_at: null, monthly_budget_usd: null, spent_usd: 0, revoked_at: null });
    expect(res.body.key).toMatch(/^mo_[A-Za-z0-9_-]{43}$/);
    expect(res.body.key.startsWith(res.body.prefix)).toBe(true);
    expect(res.body.prefix).toHaveLength(11);
  });

  test('the list shows the caller their own keys, never a secret or a hash', async () => {
    const { token } = await makeUser('user');
    const other = await makeUser('user');
    await create(token, { name: 'one', monthly_budget_usd: 5 });
    await create(other.token, { name: 'theirs' });
    const res = await call(listKeys as Handler, { token });
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { name: string }) => k.name)).toEqual(['one']);
    expect(res.body.keys[0]).toMatchObject({ monthly_budget_usd: 5, spent_usd: 0 });
    expect(res.raw).not.toMatch(/"key"|hash|mo_[A-Za-z0-9_-]{20}/);
  });

  test('admins list every key with scope=all; a user asking for it is refused', async () => {
    const admin = await makeUser('admin');
    const user = await makeUser('user');
    const created = await create(user.token, { name: 'seen-by-admin' });
    const all = await call(listKeys as Handler, { token: admin.token, query: { scope: 'all', limit: '100' } });
    expect(all.body.keys.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect((await call(listKeys as Handler, { token: user.token, query: { scope: 'all' } })).status).toBe(403);
  });

  test('a revoked key is refused on the next call, and revoking is in the audit log', async () => {
    const { token, user } = await makeUser('user');
    const created = await create(token, { name: 'to-revoke' });
    expect((await models(created.body.key)).status).toBe(200);
    const res = await call(revokeKey as Handler, { method: 'DELETE', token, pathParameters: { keyId: created.body.id } });
    expect(res.status).toBe(200);
    expect(res.body.key.revoked_at).toEqual(expect.any(String));
    const refused = await models(created.body.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ message: 'This API key has been revoked', type: 'authentication_error', code: 'invalid_api_key' });

    const superAdmin = await makeUser('super_admin');
    const audit = await call(listAudit as Handler, { token: superAdmin.token, query: { limit: '100' } });
    const actions = audit.body.entries.filter((e: { actor: { id: string } }) => e.actor.id === user.id).map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['key.create', 'key.revoke']));
  });

  test('an admin may revoke anyone’s key; another user gets 404 for it', async () => {
    const owner = await makeUser('user');
    const stranger = await makeUser('user');
    const admin = await makeUser('admin');
    const created = await create(owner.token, { name: 'x' });
    const path = { keyId: created.body.id };
    expect((await call(revokeKey as Handler, { method: 'DELETE', token: stranger.token, pathParameters: path })).status).toBe(404);
    expect((await call(updateKey as Handler, { method: 'PATCH', token: admin.token, pathParameters: path, body: { name: 'y' } })).status).toBe(404);
    expect((await call(revokeKey as Handler, { method: 'DELETE', token: admin.token, pathParameters: path })).status).toBe(200);
  });

  test('an expired key is refused at once, and an expiry in the past is refused when set', async () => {
    const { token } = await makeUser('user');
    const created = await create(token, { name: 'short-lived', expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await models(created.body.key)).status).toBe(200);
    const past = await create(token, { name: 'bad', expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    // A key that expired: its expiry moved to a moment that has passed by the next call.
    const soon = new Date(Date.now() + 1500).toISOString();
    const patched = await call(updateKey as Handler, {
      method: 'PATCH',
      token,
      pathParameters: { keyId: created.body.id },
      body: { expires_at: soon },
    });
    expect(patched.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const refused = await models(created.body.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toBe('This API key has expired');
  });

  test('PATCH changes the name, budget and expiry, and null removes a budget', async () => {
    const { token } = await makeUser('user');
    const created = await create(token, { name: 'a', monthly_budget_usd: 1 });
    const path = { keyId: created.body.id };
    const res = await call(updateKey as Handler, { method: 'PATCH', token, pathParameters: path, body: { name: 'b', monthly_budget_usd: null } });
    expect(res.body.key).toMatchObject({ name: 'b', monthly_budget_usd: null });
    expect((await call(updateKey as Handler, { method: 'PATCH', token, pathParameters: path, body: {} })).status).toBe(400);
  });

  test('a key is refused on /api, and a login token on /v1, each with 401', async () => {
    const { token } = await makeUser('user');
    const created = await create(token, { name: 'k' });
    const onApi = await call(usageCurrent as Handler, { token: created.body.key });
    expect(onApi.status).toBe(401);
    expect(onApi.body.details).toMatch(/only on \/v1/);
    const onV1 = await call(listModels as Handler, { token });
    expect(onV1.status).toBe(401);
    expect(onV1.body.error.message).toMatch(/Login tokens are not accepted on \/v1/);
  });

  test('a missing, malformed or unknown key is 401 in OpenAI’s shape with a request id', async () => {
    const missing = await call(listModels as Handler, {});
    expect(missing.status).toBe(401);
    expect(missing.headers['x-request-id']).toEqual(expect.any(String));
    expect((await models('mo_' + 'a'.repeat(43))).body.error).toEqual({
      message: 'Incorrect API key provided',
      type: 'authentication_error',
      code: 'invalid_api_key',
      param: null,
    });
    expect((await models('sk-something')).status).toBe(401);
  });

  test('a request whose key is missing or malformed is refused before any table read, though its body names a model', async () => {
    // The benchmark's meter (bench/harness.ts) sees every call through the service's client.
    const meter = new DbMeter();
    meter.install(db);
    meter.record = true;
    try {
      const body = { model: 'any-model', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
      const { result, meter: seen } = await meter.measure(async () => {
        const answers = await Promise.all([
          call(completions as Handler, { method: 'POST', body }),
          call(completions as Handler, { method: 'POST', body, headers: { authorization: 'Bearer sk-something' } }),
          call(completions as Handler, { method: 'POST', body, headers: { authorization: 'Bearer a.login.token' } }),
          call(messages as Handler, { method: 'POST', body, headers: { 'x-api-key': 'mo_short' } }),
        ]);
        // A lookup started beside the guard and left behind would still be on its way: give it time to show.
        await new Promise((resolve) => setTimeout(resolve, 100));
        return answers;
      });
      expect(result.map((r) => r.status)).toEqual([401, 401, 401, 401]);
      // Counted as each call is sent (records are kept as each one ends).
      expect(seen.calls).toBe(0);
    } finally {
      db.middlewareStack.remove('benchDbMeter');
    }
  });
});
