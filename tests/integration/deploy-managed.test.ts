import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { handler as deployHosted } from '../../functions/deploy/hosted';
import { handler as status } from '../../functions/resources/status';
import { handler as control } from '../../functions/resources/control';
import { handler as list } from '../../functions/resources/list';
import { TABLE, db } from '../../tables/client';
import { resourceKey } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

// Integration calls go through DynamoDB Local and the emulator; a loaded machine needs headroom.
jest.setTimeout(60_000);

/** Managed and hosted deployments: nothing is provisioned, the resource is tracked. */

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const LLAMA = 'meta/llama-3.1-8b-instruct';
const tag = () => randomUUID().slice(0, 8);

let admin: string;
let user: string;
beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  user = (await makeUser('user')).token;
});

const managed = (body: Record<string, unknown>, token = admin) => call(deployManaged as Handler, { method: 'POST', token, body });
const hosted = (body: Record<string, unknown>, token = admin) => call(deployHosted as Handler, { method: 'POST', token, body });
const statusOf = (id: string, token = user) => call(status as Handler, { token, pathParameters: { resourceId: id } });
const controlOf = (id: string, body: Record<string, unknown>, token = admin) =>
  call(control as Handler, { method: 'POST', token, pathParameters: { resourceId: id }, body });
const listAll = (query: Record<string, string> = {}, token = user) => call(list as Handler, { token, query });

describe('POST /api/deploy/managed', () => {
  test('without dryRun it is a dry run: the plan of spec 4.3 with prices, and nothing tracked', async () => {
    const name = `plan-${tag()}`;
    const res = await managed({ modelId: HAIKU, endpointName: name });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      dryRun: true,
      message: expect.any(String),
      plan: {
        modelId: HAIKU,
        endpointName: name,
        region: 'us-east-1',
        modelDetails: {
          providerName: 'Anthropic',
          inputModalities: expect.any(Array),
          outputModalities: ['TEXT'],
          inferenceTypesSupported: ['ON_DEMAND'],
        },
        invokeEndpoint: expect.stringMatching(/^http.*\/model\/.+\/converse$/),
        pricing: { note: expect.any(String), billingModel: expect.any(String), per_1k_input_tokens_usd: 0.00025, per_1k_output_tokens_usd: 0.00125 },
        estimatedCost: { pricing_model: 'token', per_1k_input_tokens_usd: 0.00025, per_1k_output_tokens_usd: 0.00125, example: { cost_usd: 0.5 } },
      },
    });
    expect(res.body.id).toBeUndefined();
    const listed = await listAll({ type: 'managed' });
    expect(listed.body.resources.map((r: { name: string }) => r.name)).not.toContain(name);
  });

  test('a real deploy tracks an InService resource and returns its id, endpoint, modelId and region', async () => {
    const name = `haiku-${tag()}`;
    const res = await managed({ modelId: HAIKU, endpointName: name, dryRun: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: expect.any(String),
      endpoint: expect.stringContaining('/converse'),
      modelId: HAIKU,
      region: 'us-east-1',
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);

    const st = await statusOf(res.body.id);
    expect(st.status).toBe(200);
    expect(Object.keys(st.body.resource)).toEqual([
      'id',
      'name',
      'type',
      'status',
      'health',
      'endpoint_url',
      'region',
      'instance_type',
      'instance_count',
      'model_name',
      'created_at',
      'last_updated',
      'lifecycle',
      'billing',
      'capabilities',
      'actions',
    ]);
    expect(st.body.resource).toMatchObject({
      id: res.body.id,
      name,
      type: 'managed',
      status: 'InService',
      health: 'healthy',
      endpoint_url: res.body.endpoint,
      region: 'us-east-1',
      instance_type: null,
      instance_count: null,
      model_name: 'Claude 3 Haiku',
    });
    expect(st.body.metrics).toEqual({ response_time_ms: 0 });
    expect(st.body.costs).toEqual({
      hourly_cost: 0,
      daily_cost: 0,
      monthly_estimate: 0,
      last_updated: expect.any(String),
      pricing_model: 'token',
      per_1k_input_tokens_usd: 0.00025,
      per_1k_output_tokens_usd: 0.00125,
    });
  });

  test('response_time_ms is the mean of the chat latencies recorded on the resource', async () => {
    const res = await managed({ modelId: HAIKU, endpointName: `lat-${tag()}`, dryRun: false });
    // What the chat turn does in its transaction: ADD to the two counters.
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: resourceKey(res.body.id),
        UpdateExpression: 'ADD chat_count :n, chat_latency_ms_total :ms',
        ExpressionAttributeValues: { ':n': 3, ':ms': 1000 },
      }),
    );
    expect((await statusOf(res.body.id)).body.metrics).toEqual({ response_time_ms: 333.33 });
  });

  test('a second deploy with the same name, in another letter case, is 409 and tracks nothing more', async () => {
    const name = `dup-${tag()}`;
    expect((await managed({ modelId: HAIKU, endpointName: name, dryRun: false })).status).toBe(200);
    const again = await managed({ modelId: 'amazon.nova-lite-v1:0', endpointName: name.toUpperCase(), dryRun: false });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: `An endpoint named "${name.toUpperCase()}" already exists on the managed platform` });
    const listed = await listAll({ type: 'managed', limit: '100' });
    expect(listed.body.resources.filter((r: { name: string }) => r.name.toLowerCase() === name)).toHaveLength(1);
  });

  test.each([
    ['an underscore', 'bad_name'],
    ['a dot', 'bad.name'],
    ['64 characters', 'a'.repeat(64)],
    ['an empty name', ''],
  ])('a name with %s is 400 and nothing is created', async (_what, endpointName) => {
    const res = await managed({ modelId: HAIKU, endpointName, dryRun: false });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/endpointName/);
  });

  test('an unknown model is 400 before anything is created', async () => {
    const name = `unknown-${tag()}`;
    const res = await managed({ modelId: 'acme.nothing-v1:0', endpointName: name, dryRun: false });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Unknown managed model "acme.nothing-v1:0": see GET /api/models/managed for the models on offer');
    expect((await managed({ modelId: HAIKU, endpointName: name, dryRun: false })).status).toBe(200);
  });

  test('a region other than the one the service reaches is 400', async () => {
    const res = await managed({ modelId: HAIKU, endpointName: `eu-${tag()}`, region: 'eu-west-1' });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('eu-west-1');
  });

  test('a user is 403 and no token is 401', async () => {
    expect((await managed({ modelId: HAIKU, endpointName: `u-${tag()}` }, user)).body).toEqual({
      success: false,
      error: 'Admin privileges required',
    });
    expect((await managed({ modelId: HAIKU, endpointName: `u-${tag()}` }, user)).status).toBe(403);
    expect((await call(deployManaged as Handler, { method: 'POST', body: { modelId: HAIKU, endpointName: 'x' } })).status).toBe(401);
  });

  test('an unknown field is 400 naming it', async () => {
    const res = await managed({ modelId: HAIKU, endpointName: `f-${tag()}`, instanceType: 'ml.g5.xlarge' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Unknown field 'instanceType'");
  });
});

describe('POST /api/deploy/hosted', () => {
  test('a connectivity check registers the model by default (dryRun false) and returns its id', async () => {
    const name = `llama-${tag()}`;
    const res = await hosted({ modelId: LLAMA, endpointName: name });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      provider: 'hosted',
      modelId: LLAMA,
      endpoint: expect.stringMatching(/\/v1\/chat\/completions$/),
      message: expect.any(String),
    });
    const st = await statusOf(res.body.id);
    expect(st.body.resource).toMatchObject({
      name,
      type: 'hosted',
      status: 'InService',
      health: 'healthy',
      instance_type: null,
      model_name: 'Llama 3.1 8B Instruct',
    });
    expect(st.body.metrics).toEqual({ response_time_ms: 0 });
    expect(st.body.costs).toMatchObject({
      pricing_model: 'token',
      per_1k_input_tokens_usd: 0.0003,
      per_1k_output_tokens_usd: 0.0003,
      hourly_cost: 0,
    });
  });

  test('dryRun true checks connectivity, returns a plan with prices and tracks nothing', async () => {
    const res = await hosted({ modelId: 'google/gemma-2-9b-it', endpointName: `gemma-${tag()}`, dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, provider: 'hosted', dryRun: true, plan: { estimatedCost: { per_1k_input_tokens_usd: 0.0002 } } });
    expect(res.body.id).toBeUndefined();
  });

  test('without a name the model id gives one, and registering the same model again answers 200 with the existing registration', async () => {
    const modelId = 'nvidia/nemotron-4-340b-instruct';
    const first = await hosted({ modelId });
    expect(first.status).toBe(200);
    expect(first.body.endpointName).toBe('nvidia-nemotron-4-340b-instruct');
    expect(first.body.repeated).toBeUndefined();

    const again = await hosted({ modelId });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      success: true,
      provider: 'hosted',
      modelId,
      id: first.body.id,
      endpointName: first.body.endpointName,
      endpoint: first.body.endpoint,
      status: 'InService',
      repeated: true,
      message: expect.stringContaining('already registered'),
    });
    const listed = await listAll({ type: 'hosted', limit: '100' });
    expect(listed.body.resources.filter((r: { name: string }) => r.name === first.body.endpointName)).toHaveLength(1);
  });

  test('a name already registered for another hosted model is 409', async () => {
    const name = `taken-${tag()}`;
    expect((await hosted({ modelId: LLAMA, endpointName: name })).status).toBe(200);
    const other = await hosted({ modelId: 'google/gemma-2-9b-it', endpointName: name });
    expect(other.status).toBe(409);
    expect(other.body.error).toContain(`An endpoint named "${name}" already exists`);
  });

  test('a model the hosted API does not list is 400', async () => {
    const res = await hosted({ modelId: 'acme/not-a-model', endpointName: `x-${tag()}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('Unknown hosted model "acme/not-a-model"');
  });

  test('a user is 403', async () => {
    expect((await hosted({ modelId: LLAMA }, user)).status).toBe(403);
  });
});

describe('control of managed and hosted resources', () => {
  test.each(['start', 'stop', 'restart'])('%s is 400: they are always on', async (action) => {
    const res = await managed({ modelId: HAIKU, endpointName: `c-${tag()}`, dryRun: false });
    const out = await controlOf(res.body.id, { action, confirm: true });
    expect(out.status).toBe(400);
    expect(out.body.error).toContain(`Action '${action}' is not supported on managed resources`);
  });

  test('delete without confirm: true is 400 and keeps the resource', async () => {
    const res = await hosted({ modelId: LLAMA, endpointName: `keep-${tag()}` });
    for (const body of [{ action: 'delete' }, { action: 'delete', confirm: false }]) {
      const out = await controlOf(res.body.id, body);
      expect(out.status).toBe(400);
      expect(out.body.error).toBe('Delete requires confirm: true');
    }
    expect((await statusOf(res.body.id)).status).toBe(200);
  });

  test('delete removes the tracking record and frees the name; status is then 404', async () => {
    const name = `del-${tag()}`;
    const res = await managed({ modelId: HAIKU, endpointName: name, dryRun: false });
    const out = await controlOf(res.body.id, { action: 'delete', confirm: true });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({
      success: true,
      message: expect.stringContaining('removed from tracking'),
      action: 'delete',
      status: 'deleting',
      resourceId: res.body.id,
    });
    expect((await statusOf(res.body.id)).status).toBe(404);
    expect((await controlOf(res.body.id, { action: 'delete', confirm: true })).status).toBe(404);
    expect((await managed({ modelId: HAIKU, endpointName: name, dryRun: false })).status).toBe(200);
  });

  test('a user may read status but not control: 403', async () => {
    const res = await managed({ modelId: HAIKU, endpointName: `r-${tag()}`, dryRun: false });
    expect((await statusOf(res.body.id, user)).status).toBe(200);
    const out = await controlOf(res.body.id, { action: 'delete', confirm: true }, user);
    expect(out.status).toBe(403);
    expect(out.body).toEqual({ success: false, error: 'Admin privileges required' });
  });

  test('an unknown action is 400, and an id that is not a UUID is 400', async () => {
    const res = await managed({ modelId: HAIKU, endpointName: `a-${tag()}`, dryRun: false });
    expect((await controlOf(res.body.id, { action: 'pause' })).status).toBe(400);
    expect((await statusOf('RES#x')).status).toBe(400);
  });

  test('an unknown resource is 404 for status and control', async () => {
    const id = randomUUID();
    expect((await statusOf(id)).body).toEqual({ success: false, error: 'Resource not found' });
    expect((await controlOf(id, { action: 'delete', confirm: true })).status).toBe(404);
  });
});
