import { jest } from '@jest/globals';
import { handler as getPricing } from '../../functions/pricing/get';
import { handler as upsertPricing } from '../../functions/pricing/upsert';
import { handler as updatePricing } from '../../functions/pricing/update';
import { handler as createKey } from '../../functions/keys/create';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as managedInfo } from '../../functions/models/managed-model-info';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, managedResource } from './chat-fixtures';

jest.setTimeout(60_000);

/**
 * Flex and Priority prices an admin sets per managed model (POST /api/pricing `service_tiers`): a call
 * on a priced tier is billed at that price exactly; a tier without one at the working figure. Tests
 * run in order in this file's own table.
 */

const OSS = 'openai.gpt-oss-120b-1:0'; // offers Standard, Flex and Priority; shipped at $0.00015 / $0.0006 per 1K
const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0'; // Standard only

let admin: string;
let key: string;
let endpoint: string;

const upsert = (entries: unknown[]) => call(upsertPricing as Handler, { method: 'POST', token: admin, body: { entries } });
const ossEntry = async () =>
  (await call(getPricing as Handler, { token: admin })).body.pricing.managed.find((e: { modelId: string }) => e.modelId === OSS);
const complete = (service_tier: string) =>
  call(completions as Handler, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: { model: endpoint, max_tokens: 20, service_tier, messages: [{ role: 'user', content: 'Summarise the report' }] },
  });

/** USD text of a whole number of nano-dollars, as the cost header writes it. */
const usd = (nanos: bigint) => {
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${nanos / 1_000_000_000n}${fraction ? `.${fraction}` : ''}`;
};

beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  const member = await makeUser('user');
  const [resource, created] = await Promise.all([
    listed(managedResource(OSS)),
    call(createKey as Handler, { method: 'POST', token: member.token, body: { name: 'tiers' } }),
  ]);
  endpoint = resource.endpoint_name;
  key = created.body.key;
});

describe('service tier prices', () => {
  test('without an entry, GET /api/pricing shows the working figures for the tiers a model offers, and none for a Standard-only model', async () => {
    expect((await ossEntry()).service_tiers).toEqual({
      flex: { per_1k_input_tokens_usd: 0.000075, per_1k_output_tokens_usd: 0.0003, source: 'default' },
      priority: { per_1k_input_tokens_usd: 0.0002625, per_1k_output_tokens_usd: 0.00105, source: 'default' },
    });
    const table = (await call(getPricing as Handler, { token: admin })).body.pricing.managed;
    expect(table.find((e: { modelId: string }) => e.modelId === HAIKU).service_tiers).toBeUndefined();
  });

  test.each([
    ['a negative price', { flex: { per_1k_input_tokens_usd: -1, per_1k_output_tokens_usd: 0.0002 } }, 'service_tiers'],
    ['a price given as text', { flex: { per_1k_input_tokens_usd: '0.0001', per_1k_output_tokens_usd: 0.0002 } }, 'service_tiers'],
    ['a tier missing its output price', { priority: { per_1k_input_tokens_usd: 0.0001 } }, 'per_1k_output_tokens_usd'],
    ['an unknown tier', { turbo: { per_1k_input_tokens_usd: 0.0001, per_1k_output_tokens_usd: 0.0002 } }, 'turbo'],
    ['Standard as a tier', { default: { per_1k_input_tokens_usd: 0.0001, per_1k_output_tokens_usd: 0.0002 } }, 'default'],
  ])('%s is a 400 in the spec shape, and nothing of the request is written', async (_case, service_tiers, named) => {
    const res = await upsert([
      { platform: 'managed', modelId: HAIKU, per_1k_input_tokens_usd: 0.0002, per_1k_output_tokens_usd: 0.001 },
      { platform: 'managed', modelId: OSS, per_1k_input_tokens_usd: 0.00015, per_1k_output_tokens_usd: 0.0006, service_tiers },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: expect.stringContaining(named) });
    expect((await ossEntry()).source).toBe('default');
  });

  test('a hosted entry takes no tier prices: 400', async () => {
    const res = await upsert([
      {
        platform: 'hosted',
        modelId: 'meta/llama-3.1-8b-instruct',
        per_1k_input_tokens_usd: 0.0003,
        per_1k_output_tokens_usd: 0.0005,
        service_tiers: { flex: { per_1k_input_tokens_usd: 0.0001, per_1k_output_tokens_usd: 0.0002 } },
      },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('service_tiers');
  });

  test('an admin sets a Flex price; GET /api/pricing shows it as admin-set and Priority still at the working figure', async () => {
    const res = await upsert([
      {
        platform: 'managed',
        modelId: OSS,
        per_1k_input_tokens_usd: 0.00015,
        per_1k_output_tokens_usd: 0.0006,
        service_tiers: { flex: { per_1k_input_tokens_usd: 0.00007, per_1k_output_tokens_usd: 0.00025 } },
      },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.entries[0].service_tiers.flex).toEqual({ per_1k_input_tokens_usd: 0.00007, per_1k_output_tokens_usd: 0.00025, source: 'admin' });
    expect(await ossEntry()).toMatchObject({
      source: 'admin',
      service_tiers: {
        flex: { per_1k_input_tokens_usd: 0.00007, per_1k_output_tokens_usd: 0.00025, source: 'admin' },
        priority: { per_1k_input_tokens_usd: 0.0002625, per_1k_output_tokens_usd: 0.00105, source: 'default' },
      },
    });
  });

  test("the model's detail shows each tier's price lines and where they come from", async () => {
    const res = await call(managedInfo as Handler, { path: `/api/managed/model-info/${OSS}`, pathParameters: { modelId: OSS }, token: admin });
    expect(res.status).toBe(200);
    expect(res.body.modelInfo.pricing).toEqual({
      inputTokens: '$0.00015 per 1K input tokens',
      outputTokens: '$0.0006 per 1K output tokens',
      serviceTiers: {
        flex: { inputTokens: '$0.00007 per 1K input tokens', outputTokens: '$0.00025 per 1K output tokens', source: 'admin' },
        priority: { inputTokens: '$0.0002625 per 1K input tokens', outputTokens: '$0.00105 per 1K output tokens', source: 'default' },
      },
    });
  });

  test('a Flex call through /v1 is billed at the Flex price exactly', async () => {
    const res = await complete('flex');
    expect(res.status).toBe(200);
    expect(res.body.service_tier).toBe('flex');
    const { prompt_tokens: tokensIn, completion_tokens: tokensOut } = res.body.usage;
    expect(tokensIn).toBeGreaterThan(0);
    // $0.00007 and $0.00025 per 1K: 70 and 250 nano-dollars a token.
    expect(res.headers['x-model-ops-cost-usd']).toBe(usd(BigInt(tokensIn) * 70n + BigInt(tokensOut) * 250n));
  });

  test('a Priority call on the same model, with no Priority price, is billed at 175 % of Standard', async () => {
    const res = await complete('priority');
    expect(res.status).toBe(200);
    const { prompt_tokens: tokensIn, completion_tokens: tokensOut } = res.body.usage;
    // Standard is 150 and 600 nano-dollars a token; 1.75 times it, taken up to the nano-dollar once.
    const picos = (BigInt(tokensIn) * 150_000n + BigInt(tokensOut) * 600_000n) * 175n;
    expect(res.headers['x-model-ops-cost-usd']).toBe(usd((picos + 99_999n) / 100_000n));
  });

  test('a price refresh keeps the admin-set tier price; overrideAdminEntries replaces it with the list price and the working figure', async () => {
    const kept = await call(updatePricing as Handler, { method: 'POST', token: admin, body: {} });
    expect(kept.status).toBe(200);
    expect(kept.body.kept_admin_overrides).toContain(`managed ${OSS}`);
    expect((await ossEntry()).service_tiers.flex).toMatchObject({ per_1k_input_tokens_usd: 0.00007, source: 'admin' });
    const flex = await complete('flex');
    expect(flex.headers['x-model-ops-cost-usd']).toBe(
      usd(BigInt(flex.body.usage.prompt_tokens) * 70n + BigInt(flex.body.usage.completion_tokens) * 250n),
    );

    const replaced = await call(updatePricing as Handler, { method: 'POST', token: admin, body: { overrideAdminEntries: true } });
    expect(replaced.status).toBe(200);
    const entry = await ossEntry();
    expect(entry.source).toBe('aws-price-list');
    expect(entry.service_tiers.flex.source).toBe('default');
  });
});
