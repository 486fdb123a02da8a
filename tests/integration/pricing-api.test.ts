import { jest } from '@jest/globals';
import { handler as getPricing } from '../../functions/pricing/get';
import { handler as upsertPricing } from '../../functions/pricing/upsert';
import { handler as updatePricing } from '../../functions/pricing/update';
import { handler as deployDedicated } from '../../functions/deploy/dedicated';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { handler as status } from '../../functions/resources/status';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

// Integration calls go through DynamoDB Local and the emulator; a loaded machine needs headroom.
jest.setTimeout(60_000);

/** GET/POST /api/pricing and POST /api/pricing/update. Tests run in order in this file's own table. */

const EMULATOR = process.env.EMULATOR_URL as string;
let admin: string;
let user: string;
beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  user = (await makeUser('user')).token;
});

const table = (token = user) => call(getPricing as Handler, { token });
const upsert = (entries: unknown[], token = admin) => call(upsertPricing as Handler, { method: 'POST', token, body: { entries } });
const refresh = (body?: Record<string, unknown>, token = admin) => call(updatePricing as Handler, { method: 'POST', token, body });
const find = (list: any[], key: string, value: string) => list.find((e) => e[key] === value);

describe('GET /api/pricing', () => {
  test('a fresh install shows the shipped defaults for every platform, with source and last_updated', async () => {
    const res = await table();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, currency: 'USD', source: 'default', last_updated: '2024-10-01T00:00:00.000Z' });
    expect(find(res.body.pricing.managed, 'modelId', 'anthropic.claude-3-haiku-20240307-v1:0')).toEqual({
      modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
      per_1k_input_tokens_usd: 0.00025,
      per_1k_output_tokens_usd: 0.00125,
      source: 'default',
      last_updated: '2024-10-01T00:00:00.000Z',
    });
    expect(find(res.body.pricing.hosted, 'modelId', 'meta/llama-3.1-8b-instruct')).toMatchObject({ per_1k_input_tokens_usd: 0.0003 });
    expect(find(res.body.pricing.dedicated, 'instanceType', 'ml.g5.xlarge')).toMatchObject({
      hourly_usd: 1.408,
      daily_usd: 33.792,
      monthly_estimate_usd: 1027.84,
    });
  });

  test('needs a token: 401', async () => {
    expect((await call(getPricing as Handler, {})).status).toBe(401);
  });
});

describe('POST /api/pricing', () => {
  test('an admin upserts token and instance prices; they are in use at once', async () => {
    const res = await upsert([
      { platform: 'managed', modelId: 'anthropic.claude-3-haiku-20240307-v1:0', per_1k_input_tokens_usd: 0.0002, per_1k_output_tokens_usd: 0.001 },
      { platform: 'hosted', modelId: 'acme/new-model', per_1k_input_tokens_usd: 0.0005, per_1k_output_tokens_usd: 0.0007 },
      { platform: 'dedicated', instanceType: 'ml.c6i.large', hourly_usd: 0.102 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, updated: 3, last_updated: expect.any(String) });

    const after = await table();
    expect(after.body.source).toBe('mixed');
    expect(after.body.last_updated).toBe(res.body.last_updated);
    expect(find(after.body.pricing.managed, 'modelId', 'anthropic.claude-3-haiku-20240307-v1:0')).toMatchObject({
      per_1k_input_tokens_usd: 0.0002,
      source: 'admin',
    });
    expect(find(after.body.pricing.hosted, 'modelId', 'acme/new-model')).toMatchObject({ per_1k_output_tokens_usd: 0.0007, source: 'admin' });

    // A new instance type becomes deployable, and a managed resource's costs use the new price.
    const plan = await call(deployDedicated as Handler, {
      method: 'POST',
      token: admin,
      body: { endpointName: 'priced', instanceType: 'ml.c6i.large', inferenceImage: 'img:1', instanceCount: 2 },
    });
    expect(plan.status).toBe(200);
    expect(plan.body.plan.estimatedCost).toMatchObject({ hourly_usd: 0.204 });
    const deployed = await call(deployManaged as Handler, {
      method: 'POST',
      token: admin,
      body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: 'priced-haiku', dryRun: false },
    });
    const st = await call(status as Handler, { token: user, pathParameters: { resourceId: deployed.body.id } });
    expect(st.body.costs).toMatchObject({ per_1k_input_tokens_usd: 0.0002, per_1k_output_tokens_usd: 0.001 });
  });

  test.each([
    ['a negative price', [{ platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: -1 }], "Invalid field 'entries.0.hourly_usd'"],
    [
      'a token entry without output price',
      [{ platform: 'managed', modelId: 'm', per_1k_input_tokens_usd: 1 }],
      "Missing required field 'entries.0.per_1k_output_tokens_usd'",
    ],
    [
      'a dedicated entry with a model id',
      [{ platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 1, modelId: 'm' }],
      "Unknown field 'entries.0.modelId' (a dedicated entry takes platform, instanceType and hourly_usd)",
    ],
    ['a malformed instance type', [{ platform: 'dedicated', instanceType: 'g5.xlarge', hourly_usd: 1 }], "Invalid field 'entries.0.instanceType'"],
    ['an unknown platform', [{ platform: 'other', modelId: 'm' }], "Invalid field 'entries.0.platform'"],
    [
      'an unknown field',
      [{ platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 1, currency: 'EUR' }],
      "Unknown field 'entries.0.currency'",
    ],
    ['no entries', [], "Invalid field 'entries'"],
    [
      'the same entry twice',
      [
        { platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 1 },
        { platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 2 },
      ],
      'Duplicate entry for dedicated ml.m5.large',
    ],
  ])('%s is 400 and nothing is written', async (_what, entries, message) => {
    const res = await upsert(entries);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
    expect(find((await table()).body.pricing.dedicated, 'instanceType', 'ml.m5.large')).toMatchObject({ hourly_usd: 0.115, source: 'default' });
  });

  test('a user is 403', async () => {
    expect((await upsert([{ platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 1 }], user)).status).toBe(403);
  });
});

describe('POST /api/pricing/update', () => {
  test('refreshes from the AWS Price List API, keeping admin prices and reporting them', async () => {
    await upsert([{ platform: 'dedicated', instanceType: 'ml.g5.xlarge', hourly_usd: 9.99 }]);
    const res = await refresh();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, source: 'aws-price-list', region: 'us-east-1', summary: { kept_admin_overrides: 2 } });
    expect(res.body.kept_admin_overrides).toEqual(
      expect.arrayContaining(['dedicated ml.g5.xlarge', 'managed anthropic.claude-3-haiku-20240307-v1:0']),
    );
    // The emulator's list prices equal the shipped defaults: nothing changed.
    expect(res.body.changes).toEqual([]);
    const after = await table();
    expect(find(after.body.pricing.dedicated, 'instanceType', 'ml.g5.2xlarge')).toMatchObject({ hourly_usd: 1.515, source: 'aws-price-list' });
    expect(find(after.body.pricing.managed, 'modelId', 'amazon.nova-lite-v1:0')).toMatchObject({
      per_1k_input_tokens_usd: 0.00006,
      source: 'aws-price-list',
    });
    // Embeddings have no output price in the list: the output price stays as it was.
    expect(find(after.body.pricing.managed, 'modelId', 'amazon.titan-embed-text-v2:0')).toMatchObject({
      per_1k_input_tokens_usd: 0.00002,
      per_1k_output_tokens_usd: 0,
    });
    expect(find(after.body.pricing.dedicated, 'instanceType', 'ml.g5.xlarge')).toMatchObject({ hourly_usd: 9.99, source: 'admin' });
  });

  test('reads the prompt cache prices too: Nova from AmazonBedrock, Claude 4.5 from AmazonBedrockFoundationModels, a geographic profile at its own scope', async () => {
    const managed = (await table()).body.pricing.managed;
    expect(find(managed, 'modelId', 'amazon.nova-lite-v1:0')).toMatchObject({
      per_1k_cache_read_tokens_usd: 0.000015,
      per_1k_cache_write_tokens_usd: 0.00006,
      source: 'aws-price-list',
    });
    expect(find(managed, 'modelId', 'anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({
      per_1k_input_tokens_usd: 0.003,
      per_1k_cache_read_tokens_usd: 0.0003,
      per_1k_cache_write_tokens_usd: 0.00375,
      per_1k_cache_write_1h_tokens_usd: 0.006,
      source: 'aws-price-list',
    });
    expect(find(managed, 'modelId', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({
      per_1k_input_tokens_usd: 0.0033,
      per_1k_cache_write_1h_tokens_usd: 0.0066,
      source: 'aws-price-list',
    });
  });

  test('overrideAdminEntries replaces admin prices and reports each change with old and new values', async () => {
    const res = await refresh({ overrideAdminEntries: true });
    expect(res.status).toBe(200);
    expect(res.body.changes).toEqual(
      expect.arrayContaining([
        { platform: 'dedicated', key: 'ml.g5.xlarge', field: 'hourly_usd', old: 9.99, new: 1.408 },
        { platform: 'managed', key: 'anthropic.claude-3-haiku-20240307-v1:0', field: 'per_1k_input_tokens_usd', old: 0.0002, new: 0.00025 },
        { platform: 'managed', key: 'anthropic.claude-3-haiku-20240307-v1:0', field: 'per_1k_output_tokens_usd', old: 0.001, new: 0.00125 },
      ]),
    );
    expect(res.body.changes).toHaveLength(3);
    expect(res.body.summary).toMatchObject({ changed: 2, kept_admin_overrides: 0 });
  });

  test('a model the price list does not know is reported, not dropped', async () => {
    await upsert([{ platform: 'managed', modelId: 'acme.private-v1:0', per_1k_input_tokens_usd: 0.1, per_1k_output_tokens_usd: 0.1 }]);
    const res = await refresh({ overrideAdminEntries: true });
    expect(res.body.not_in_price_list).toContain('managed acme.private-v1:0');
    expect(find((await table()).body.pricing.managed, 'modelId', 'acme.private-v1:0')).toMatchObject({ per_1k_input_tokens_usd: 0.1 });
  });

  test('a failing Price List API is 502 and changes nothing', async () => {
    // Scoped to the SageMaker query (its productFamily filter value), every attempt of it.
    await fetch(`${EMULATOR}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Signed with this file's key only (tests/setup/table-env.ts): no other file's refresh meets it.
      body: JSON.stringify({ target: 'GetProducts', fault: '500', model: 'ML Instance', count: 3, caller: process.env.SERVICE_CLOUD_ACCESS_KEY_ID }),
    });
    const before = await table();
    const res = await refresh();
    expect(res.status).toBe(502);
    expect(res.body.error).toContain('Price List');
    expect((await table()).body).toEqual(before.body);
  });

  test('a 1-hour cache write priced at the 5-minute rate is put right, and the change reported', async () => {
    const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    await upsert([
      {
        platform: 'managed',
        modelId: SONNET,
        per_1k_input_tokens_usd: 0.003,
        per_1k_output_tokens_usd: 0.015,
        per_1k_cache_write_1h_tokens_usd: 0.00375,
      },
    ]);
    const res = await refresh({ overrideAdminEntries: true });
    expect(res.body.changes).toContainEqual({
      platform: 'managed',
      key: SONNET,
      field: 'per_1k_cache_write_1h_tokens_usd',
      old: 0.00375,
      new: 0.006,
    });
    expect(find((await table()).body.pricing.managed, 'modelId', SONNET)).toMatchObject({ per_1k_cache_write_1h_tokens_usd: 0.006 });
  });

  test('a user is 403', async () => {
    expect((await refresh({}, user)).status).toBe(403);
  });
});
