import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DescribeEndpointCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { handler as deployDedicated } from '../../functions/deploy/dedicated';
import { handler as status } from '../../functions/resources/status';
import { handler as control } from '../../functions/resources/control';
import { handler as list } from '../../functions/resources/list';
import { usd } from '../../lib/pricing/money';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

// Integration calls go through DynamoDB Local and the emulator; a loaded machine needs headroom.
jest.setTimeout(60_000);

/**
 * Dedicated deployments end to end through the shared emulator (lifecycle delay 0: an endpoint is
 * InService at the first DescribeEndpoint after a change). The intermediate states are pinned in
 * resources-lifecycle.test.ts, which runs its own slower emulator.
 */

const EMULATOR = process.env.EMULATOR_URL as string;
const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
const IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-py310-cu121-ubuntu22.04';
// Names are unique per run: every test file shares the one emulator.
const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

const sagemaker = new SageMakerClient({
  region: 'us-east-1',
  endpoint: EMULATOR,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
});
afterAll(() => sagemaker.destroy());

let admin: string;
let user: string;
beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  user = (await makeUser('user')).token;
});

const deploy = (body: Record<string, unknown>, token = admin) => call(deployDedicated as Handler, { method: 'POST', token, body });
const realDeploy = (endpointName: string, extra: Record<string, unknown> = {}) =>
  deploy({ endpointName, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, dryRun: false, ...extra });
const statusOf = (id: string) => call(status as Handler, { token: user, pathParameters: { resourceId: id } });
const controlOf = (id: string, body: Record<string, unknown>, token = admin) =>
  call(control as Handler, { method: 'POST', token, pathParameters: { resourceId: id }, body });
const listed = async (query: Record<string, string> = {}) =>
  (await call(list as Handler, { token: user, query: { limit: '100', ...query } })).body.resources as any[];
const emulatorState = async () =>
  (await (await fetch(`${EMULATOR}/_emulator/state`)).json()) as {
    endpoints: { name: string; status: string }[];
    models: string[];
    endpointConfigs: string[];
  };

describe('POST /api/deploy/dedicated: dry run', () => {
  test('is the default and returns the plan of spec 4.3 with the configured role and VPC, and an hourly estimate', async () => {
    const name = uniqueName('plan');
    const res = await deploy({ endpointName: name, instanceType: 'ml.g5.2xlarge', modelPackageArn: PACKAGE });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      dryRun: true,
      message: expect.any(String),
      plan: {
        endpointName: name,
        instanceType: 'ml.g5.2xlarge',
        instanceCount: 1,
        roleArn: 'arn:aws:iam::123456789012:role/model-ops-test-sagemaker',
        vpc: { subnets: ['subnet-0test00000000001', 'subnet-0test00000000002'], securityGroups: ['sg-0test000000000001'] },
        model: { modelPackageArn: PACKAGE, inferenceImage: expect.stringContaining('tgi'), modelDataUrl: expect.stringMatching(/^s3:\/\//) },
        modelPackage: { displayName: 'llm-support-bot v1', modelApprovalStatus: 'Approved' },
        endpoint: expect.stringContaining(`/endpoints/${name}/invocations`),
        estimatedCost: {
          pricing_model: 'hourly',
          instance_type: 'ml.g5.2xlarge',
          instance_count: 1,
          hourly_usd: 1.515,
          daily_usd: 36.36,
          monthly_usd: 1105.95,
        },
      },
    });
    const state = await emulatorState();
    expect(state.endpoints.map((e) => e.name)).not.toContain(name);
    expect(state.models.some((m) => m.startsWith(name))).toBe(false);
    expect((await listed()).map((r) => r.name)).not.toContain(name);
  });

  test('the plan reads each amount one way: its guardrail sentences give the hourly price as its estimate shows it', async () => {
    // $1.515 an hour: rounded on its binary value it would read $1.51 in one place and $1.52 in the other.
    const res = await deploy({ endpointName: uniqueName('round'), instanceType: 'ml.g5.2xlarge', modelPackageArn: PACKAGE, monthlyBudgetUsd: 50 });
    const { estimatedCost, guardrails } = res.body.plan;
    expect(usd(estimatedCost.hourly_usd)).toBe('$1.52');
    expect(guardrails.effects).toEqual([expect.stringContaining('The budget of $50.00 a month buys 33 hours at $1.52 an hour')]);
    const bare = await deploy({ endpointName: uniqueName('round'), instanceType: 'ml.g5.2xlarge', modelPackageArn: PACKAGE });
    expect(bare.body.plan.guardrails.effects).toEqual(['No guardrail: the endpoint bills $1.52 an hour until it is deleted, used or not']);
  });

  test('the plan says how long the endpoint reads Creating: the time the platform takes (here the emulator’s)', async () => {
    const name = uniqueName('steps');
    const res = await deploy({ endpointName: name, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE });
    expect(res.body.plan.steps.at(-1)).toBe(`Create the endpoint "${name}": its status reads Creating for a moment, then InService`);
  });

  test('an image with model data and two instances is planned at twice the hourly price', async () => {
    const res = await deploy({
      endpointName: uniqueName('img'),
      instanceType: 'ml.m5.xlarge',
      instanceCount: 2,
      inferenceImage: IMAGE,
      modelDataUrl: 's3://bucket/model.tar.gz',
    });
    expect(res.status).toBe(200);
    expect(res.body.plan.model).toEqual({ modelPackageArn: null, inferenceImage: IMAGE, modelDataUrl: 's3://bucket/model.tar.gz' });
    expect(res.body.plan.estimatedCost).toMatchObject({ hourly_usd: 0.46, monthly_usd: 335.8 });
  });
});

describe('POST /api/deploy/dedicated: refused before anything is created (400)', () => {
  test.each([
    ['an unknown instance type', { instanceType: 'ml.nope.huge' }, 'Unknown instance type "ml.nope.huge"'],
    ['an unknown model package', { modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/nothing/9' }, 'Unknown model package'],
    ['an instance type the package does not support', { instanceType: 'ml.t2.medium' }, 'is not supported by model package'],
    ['neither a package nor an image', { modelPackageArn: undefined }, "Missing required field 'modelPackageArn' or 'inferenceImage'"],
    ['an underscore in the name', { endpointName: 'bad_name' }, "SageMaker's naming rule"],
    ['a name ending in a hyphen', { endpointName: 'bad-' }, "SageMaker's naming rule"],
    ['a 64-character name', { endpointName: 'a'.repeat(64) }, "SageMaker's naming rule"],
  ])('%s', async (_what, extra, message) => {
    const body = { endpointName: uniqueName('bad'), instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, dryRun: false, ...extra };
    const res = await deploy(JSON.parse(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
    expect((await emulatorState()).endpoints.map((e) => e.name)).not.toContain(body.endpointName);
  });

  test('a user is 403', async () => {
    const res = await deploy({ endpointName: uniqueName('u'), instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE }, user);
    expect(res.status).toBe(403);
  });
});

describe('the dedicated lifecycle', () => {
  test('a real deploy returns at Creating with the id, then status reads InService with hourly costs and five metrics', async () => {
    const name = uniqueName('life');
    const res = await realDeploy(name);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      // What the person will see, in the platform's time (the test runtime's emulator changes state at once).
      message: `Endpoint creation started for "${name}": its status reads Creating for a moment, then InService, ready for chat`,
      endpointName: name,
      endpoint: expect.stringContaining(name),
      status: 'Creating',
    });
    expect((await emulatorState()).endpoints.map((e) => e.name)).toContain(name);

    const st = await statusOf(res.body.id);
    expect(st.status).toBe(200);
    expect(st.body.resource).toMatchObject({
      id: res.body.id,
      name,
      type: 'dedicated',
      status: 'InService',
      health: 'healthy',
      region: 'us-east-1',
      instance_type: 'ml.g5.xlarge',
      instance_count: 1,
      model_name: 'llm-support-bot v1',
    });
    expect(Object.keys(st.body.metrics).sort()).toEqual([
      'cpu_utilization',
      'error_rate_percent',
      'memory_utilization',
      'response_time_ms',
      'throughput_per_minute',
    ]);
    for (const v of Object.values(st.body.metrics)) expect(typeof v).toBe('number');
    expect(st.body.costs).toEqual({
      hourly_cost: 1.408,
      daily_cost: 33.792,
      monthly_estimate: 1027.84,
      last_updated: expect.any(String),
      pricing_model: 'hourly',
      // Billed since the creation request: a few seconds at most here.
      month_to_date_usd: expect.any(Number),
    });
    expect(st.body.costs.month_to_date_usd).toBeGreaterThan(0);
    expect(st.body.costs.month_to_date_usd).toBeLessThan(0.1);
    // The list shows the stored status the status read has just refreshed.
    expect((await listed({ type: 'dedicated', status: 'InService' })).map((r) => r.id)).toContain(res.body.id);
  });

  test('restart answers updating at once and the endpoint is back InService', async () => {
    const res = await realDeploy(uniqueName('restart'));
    await statusOf(res.body.id);
    const out = await controlOf(res.body.id, { action: 'restart' });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({
      success: true,
      message: expect.stringMatching(
        /^Restart of endpoint "restart-[0-9a-f]+" initiated: its status reads Updating for a moment, then InService again$/,
      ),
      action: 'restart',
      status: 'updating',
      resourceId: res.body.id,
    });
    expect((await statusOf(res.body.id)).body.resource).toMatchObject({ status: 'InService', health: 'healthy' });
  });

  test('delete answers deleting, then status is 404, the resource leaves the list and its name is free', async () => {
    const name = uniqueName('delete');
    const res = await realDeploy(name);
    await statusOf(res.body.id);
    const out = await controlOf(res.body.id, { action: 'delete', confirm: true });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ success: true, action: 'delete', status: 'deleting' });
    const gone = await statusOf(res.body.id);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe(`Resource not found: endpoint "${name}" has been deleted`);
    expect((await listed()).map((r) => r.id)).not.toContain(res.body.id);
    const state = await emulatorState();
    expect(state.endpoints.map((e) => e.name)).not.toContain(name);
    expect(state.models.some((m) => m.startsWith(`${name}-`))).toBe(false);
    expect((await realDeploy(name)).status).toBe(200);
  });

  test('stop is 400 (delete instead) and delete without confirm is 400', async () => {
    const res = await realDeploy(uniqueName('stop'));
    const stop = await controlOf(res.body.id, { action: 'stop' });
    expect(stop.status).toBe(400);
    expect(stop.body.error).toContain('use delete instead');
    expect((await controlOf(res.body.id, { action: 'delete' })).body).toEqual({ success: false, error: 'Delete requires confirm: true' });
    expect((await statusOf(res.body.id)).body.resource.status).toBe('InService');
  });

  test('a user cannot control a dedicated resource: 403', async () => {
    const res = await realDeploy(uniqueName('u403'));
    expect((await controlOf(res.body.id, { action: 'restart' }, user)).status).toBe(403);
  });

  test('a second deploy with the same name is 409, in any letter case', async () => {
    const name = uniqueName('twice');
    expect((await realDeploy(name)).status).toBe(200);
    const again = await realDeploy(name.toUpperCase());
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`An endpoint named "${name.toUpperCase()}" already exists on the dedicated platform`);
  });

  test('a name already used by an endpoint this service does not track is 409 and leaves no reservation', async () => {
    const name = uniqueName('foreign');
    await sagemaker.send(
      new CreateModelCommand({ ModelName: name, ExecutionRoleArn: 'arn:aws:iam::123456789012:role/x', PrimaryContainer: { Image: IMAGE } }),
    );
    await sagemaker.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: name,
        ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: name, InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 }],
      }),
    );
    await sagemaker.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: name }));
    const res = await realDeploy(name);
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('not tracked by this service');
    expect((await listed()).map((r) => r.name)).not.toContain(name);
  });
});

describe("an endpoint deleted behind the service's back", () => {
  async function vanished() {
    const name = uniqueName('vanish');
    const res = await realDeploy(name);
    const st = await statusOf(res.body.id);
    expect([st.status, st.body.resource?.status ?? st.raw]).toEqual([200, 'InService']);
    await sagemaker.send(new DeleteEndpointCommand({ EndpointName: name }));
    // delay 0: the deletion completes at the next look
    await expect(sagemaker.send(new DescribeEndpointCommand({ EndpointName: name }))).rejects.toThrow(/Could not find endpoint/);
    return { id: res.body.id as string, name };
  }

  test('status reads OutOfService with the reason and what to do, and the list keeps it marked OutOfService', async () => {
    const { id } = await vanished();
    const st = await statusOf(id);
    expect(st.status).toBe(200);
    expect(st.body.resource).toMatchObject({ status: 'OutOfService', health: 'unknown' });
    expect(st.body.failure_reason).toBe('The endpoint no longer exists on the platform (deleted outside this service)');
    expect(st.body.warnings).toContain(
      'The endpoint was deleted outside this service: action start creates it again from its kept configuration; delete (confirm: true) removes the resource',
    );
    expect(st.body.costs.hourly_cost).toBe(0);
    expect((await listed()).find((r) => r.id === id)).toMatchObject({ status: 'OutOfService', health: 'unknown' });
  });

  test('start creates it again from its kept configuration: creating, then InService, the mark cleared', async () => {
    const { id, name } = await vanished();
    const start = await controlOf(id, { action: 'start' });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ success: true, action: 'start', status: 'creating' });
    const endpoint = (await emulatorState()).endpoints.find((e) => e.name === name);
    expect(endpoint).toBeDefined();
    const st = await statusOf(id);
    expect(st.body.resource).toMatchObject({ status: 'InService', health: 'healthy' });
    expect(st.body.failure_reason).toBeUndefined();
    expect(st.body.warnings).toBeUndefined();
  });

  test('restart is 409: nothing is running to restart, use start', async () => {
    const { id } = await vanished();
    const out = await controlOf(id, { action: 'restart' });
    expect(out.status).toBe(409);
    expect(out.body.error).toBe('Resource is currently OutOfService: restart needs an InService endpoint; use start to redeploy it');
  });

  test('start when its configuration was deleted outside too is 409 saying to delete it and deploy again, and changes nothing', async () => {
    const { id, name } = await vanished();
    const config = (await emulatorState()).endpointConfigs.find((c) => c.startsWith(`${name}-`)) as string;
    await sagemaker.send(new DeleteEndpointConfigCommand({ EndpointConfigName: config }));
    const out = await controlOf(id, { action: 'start' });
    expect(out.status).toBe(409);
    expect(out.body.error).toBe(
      `Endpoint "${name}" cannot be created again: its configuration no longer exists on the dedicated platform either; delete the resource (confirm: true) and deploy it again`,
    );
    expect((await statusOf(id)).body.resource.status).toBe('OutOfService');
  });

  test('delete with confirm removes it from tracking with its kept configuration and model; its name can be deployed again', async () => {
    const { id, name } = await vanished();
    const out = await controlOf(id, { action: 'delete', confirm: true });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ success: true, action: 'delete', status: 'deleting' });
    expect((await listed()).map((r) => r.id)).not.toContain(id);
    const state = await emulatorState();
    expect(state.endpointConfigs.filter((c) => c.startsWith(`${name}-`))).toEqual([]);
    expect(state.models.filter((m) => m.startsWith(`${name}-`))).toEqual([]);
    expect((await statusOf(id)).status).toBe(404);
    expect((await realDeploy(name)).status).toBe(200);
  });

  test('a new deploy of its name takes the name over from the vanished record', async () => {
    const { id, name } = await vanished();
    const res = await realDeploy(name);
    expect(res.status).toBe(200);
    expect((await listed()).map((r) => r.id)).not.toContain(id);
  });
});
