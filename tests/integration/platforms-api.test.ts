import { jest } from '@jest/globals';
import { handler as listPlatforms } from '../../functions/models/list-platforms';
import { handler as getPricing } from '../../functions/pricing/get';
import { handler as upsertPricing } from '../../functions/pricing/upsert';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

jest.setTimeout(60_000);

/**
 * GET /api/platforms: the platforms as the registry describes them, for any signed-in role, so that a
 * client (the console) shows them without knowing them by name; and the price table, whose entries
 * take the shape and the tiers that description says.
 */

type Described = { id: string; label: string; description: string; billing: string; lifecycle: string; service_tiers: boolean };

let user: string;
let admin: string;
let platforms: Described[];

beforeAll(async () => {
  [user, admin] = await Promise.all([makeUser('user').then((u) => u.token), makeUser('admin').then((u) => u.token)]);
  platforms = (await call(listPlatforms as Handler, { token: user })).body.platforms;
});

test('a user is answered every platform, in the registry order, with what each is', async () => {
  const res = await call(listPlatforms as Handler, { token: user });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['platforms', 'success']);
  expect(res.body.platforms).toEqual([
    {
      id: 'managed',
      label: 'Managed',
      description: expect.stringContaining('per token'),
      billing: 'per_token',
      lifecycle: 'access',
      service_tiers: true,
    },
    {
      id: 'dedicated',
      label: 'Dedicated',
      description: expect.stringContaining('by the hour'),
      billing: 'per_hour',
      lifecycle: 'endpoint',
      service_tiers: false,
    },
    {
      id: 'hosted',
      label: 'Hosted',
      description: expect.stringContaining('per token'),
      billing: 'per_token',
      lifecycle: 'access',
      service_tiers: false,
    },
  ]);
});

test('without a token the answer is a 401 in the spec shape, and it names no platform', async () => {
  const res = await call(listPlatforms as Handler, {});
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ success: false, error: expect.any(String), details: 'No token provided' });
});

test("the price table lists each platform's prices in the shape its billing says: per model when per token, per instance type when per hour", async () => {
  const { pricing } = (await call(getPricing as Handler, { token: admin })).body;
  expect(Object.keys(pricing).sort()).toEqual(platforms.map((p) => p.id).sort());
  for (const p of platforms) {
    const entries: Record<string, unknown>[] = pricing[p.id];
    expect(entries.length).toBeGreaterThan(0);
    const key = p.billing === 'per_hour' ? 'instanceType' : 'modelId';
    expect(entries.every((e) => typeof e[key] === 'string')).toBe(true);
  }
});

test('a price entry takes service tier prices exactly where its platform says it has service tiers', async () => {
  const tiers = { flex: { per_1k_input_tokens_usd: 0.0001, per_1k_output_tokens_usd: 0.0002 } };
  const token = platforms.filter((p) => p.billing === 'per_token');
  const model = { managed: 'openai.gpt-oss-120b-1:0', hosted: 'meta/llama-3.1-8b-instruct' } as Record<string, string>;
  for (const p of token) {
    const entry = { platform: p.id, modelId: model[p.id], per_1k_input_tokens_usd: 0.0002, per_1k_output_tokens_usd: 0.0004, service_tiers: tiers };
    const res = await call(upsertPricing as Handler, { method: 'POST', token: admin, body: { entries: [entry] } });
    expect([p.id, res.status]).toEqual([p.id, p.service_tiers ? 200 : 400]);
    if (!p.service_tiers) expect(res.body).toMatchObject({ success: false, error: expect.stringContaining('service_tiers') });
  }
  expect(token.map((p) => p.service_tiers)).toContain(true);
  expect(token.map((p) => p.service_tiers)).toContain(false);
});
