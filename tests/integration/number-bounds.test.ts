import { jest } from '@jest/globals';
import { handler as getPricing } from '../../functions/pricing/get';
import { handler as upsertPricing } from '../../functions/pricing/upsert';
import { handler as createConversation } from '../../functions/conversations/create';
import { handler as listConversations } from '../../functions/conversations/list';
import { handler as deployDedicated } from '../../functions/deploy/dedicated';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { deployedResourceBody } from './chat-fixtures';

jest.setTimeout(60_000);

/**
 * Every numeric field of a request body has a range the service really supports (docs/openapi.yaml,
 * "Numbers"): a value at each edge is accepted and read back exactly as sent, one just past it is a 400
 * naming the field. JSON's own edges (a double's largest and smallest, integers past 2^53, -0) are
 * refused or normalised before they reach DynamoDB, which would fail on 1e-324's neighbours.
 */

let admin: string;
beforeAll(async () => {
  admin = (await makeUser('admin')).token;
});

/** Sends a body as raw text, so that numbers JSON.stringify would rewrite reach the service as written. */
const raw = (handler: Handler, token: string, text: string) => call(handler, { method: 'POST', token, body: text });

describe('amounts of money: 0, or from 0.000000001 to the maximum', () => {
  test.each([
    ['hourly_usd', 'dedicated', 'ml.nb1.edge', 10_000],
    ['per_1k_input_tokens_usd', 'managed', 'nb.edge-model', 1000],
    ['per_1k_output_tokens_usd', 'hosted', 'nb/edge-model', 1000],
  ])('%s at 0, at 0.000000001 and at its maximum is stored and read back exactly', async (field, platform, id, max) => {
    const entry = (value: number) =>
      platform === 'dedicated'
        ? { platform, instanceType: id, hourly_usd: value }
        : { platform, modelId: id, per_1k_input_tokens_usd: 0.5, per_1k_output_tokens_usd: 0.5, [field]: value };
    const key = platform === 'dedicated' ? 'instanceType' : 'modelId';
    for (const value of [0, 1e-9, max]) {
      const res = await call(upsertPricing as Handler, { method: 'POST', token: admin, body: { entries: [entry(value)] } });
      expect(res.status).toBe(200);
      const table = await call(getPricing as Handler, { token: admin });
      const stored = table.body.pricing[platform].find((e: Record<string, unknown>) => e[key] === id);
      expect({ value, stored: stored[field] }).toEqual({ value, stored: value });
    }
  });

  test.each([
    ['just past the maximum', '10000.000001'],
    ['below the smallest amount', '1e-10'],
    ['the smallest double', '5e-324'],
    ['negative', '-0.000000001'],
    ['an integer past 2^53', '9007199254740993'],
    ['the largest double', '1.7976931348623157e308'],
    ['too large for a double', '1e400'],
    ['a string', '"1"'],
  ])('hourly_usd %s (%s) is 400 naming the field', async (_label, text) => {
    const res = await raw(
      upsertPricing as Handler,
      admin,
      `{"entries":[{"platform":"dedicated","instanceType":"ml.nb2.edge","hourly_usd":${text}}]}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid field 'entries\.0\.hourly_usd'/);
  });

  test('-0 and an exponent are read as the numbers they are: -0 is stored as 0, 1e2 as 100', async () => {
    const body =
      '{"entries":[{"platform":"dedicated","instanceType":"ml.nb3.edge","hourly_usd":-0},{"platform":"dedicated","instanceType":"ml.nb4.edge","hourly_usd":1e2}]}';
    expect((await raw(upsertPricing as Handler, admin, body)).status).toBe(200);
    const dedicated = (await call(getPricing as Handler, { token: admin })).body.pricing.dedicated as Array<Record<string, unknown>>;
    expect(dedicated.find((e) => e.instanceType === 'ml.nb3.edge')?.hourly_usd).toBe(0);
    expect(Object.is(dedicated.find((e) => e.instanceType === 'ml.nb3.edge')?.hourly_usd, -0)).toBe(false);
    expect(dedicated.find((e) => e.instanceType === 'ml.nb4.edge')?.hourly_usd).toBe(100);
  });

  test('estimated_hourly_cost at 0.000000001 and at 1000000 is stored exactly; 1000000.000001 is 400', async () => {
    const { token } = await makeUser('user');
    for (const cost of [1e-9, 1_000_000]) {
      const body = { title: `cost ${cost}`, use_case: 'bounds', deployed_resource: { ...deployedResourceBody(), estimated_hourly_cost: cost } };
      expect((await call(createConversation as Handler, { method: 'POST', token, body })).status).toBe(200);
    }
    const listed = (await call(listConversations as Handler, { token })).body.conversations as Array<{
      deployed_resource: { estimated_hourly_cost: number };
    }>;
    expect(listed.map((c) => c.deployed_resource.estimated_hourly_cost).sort((a, b) => a - b)).toEqual([1e-9, 1_000_000]);
    const over = { title: 'over', use_case: 'bounds', deployed_resource: { ...deployedResourceBody(), estimated_hourly_cost: 1_000_000.000001 } };
    const res = await call(createConversation as Handler, { method: 'POST', token, body: over });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid field 'deployed_resource\.estimated_hourly_cost'/);
  });
});

describe('integers', () => {
  const dedicated = (instanceCount: unknown) => ({
    endpointName: 'nb-count',
    instanceType: 'ml.g5.xlarge',
    modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/demo/1',
    instanceCount,
    dryRun: true,
  });

  test.each([0, 11, 1.5, -0.5, 1e21])('instanceCount %p is 400 naming the field', async (count) => {
    const res = await call(deployDedicated as Handler, { method: 'POST', token: admin, body: dedicated(count) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid field 'instanceCount'/);
  });

  test('a limit past its maximum, fractional, or -0 is 400 naming the field', async () => {
    for (const limit of ['101', '1.5', '1e3', '-0']) {
      const res = await call(listConversations as Handler, { token: admin, query: { limit } });
      expect({ limit, status: res.status, error: res.body.error }).toMatchObject({
        limit,
        status: 400,
        error: expect.stringMatching(/^Invalid field 'limit'/),
      });
    }
  });
});
