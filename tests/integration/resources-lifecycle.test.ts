import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { call, type Handler } from '../helpers/invoke';

/**
 * The intermediate states of spec section 3, against an emulator of this file's own. Its endpoint
 * operations stay under way (PAUSED) until a test lets them complete (`complete`), so every state is
 * seen however slowly the machine runs. The service's modules are imported only after the
 * environment points at it: config is read once, at import.
 */

const PAUSED = 3_600_000;
jest.setTimeout(60_000);
let emulator: RunningEmulator;
let h: { deploy: Handler; hosted: Handler; status: Handler; control: Handler; list: Handler };
let admin: string;
let user: string;

const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: PAUSED, hostedApiKey: 'lifecycle-key' });
  Object.assign(process.env, {
    SERVICE_CLOUD_ENDPOINT: emulator.url,
    HOSTED_BASE_URL: `${emulator.url}/v1`,
    HOSTED_API_KEY: 'lifecycle-key',
  });
  h = {
    deploy: (await import('../../functions/deploy/dedicated')).handler as Handler,
    hosted: (await import('../../functions/deploy/hosted')).handler as Handler,
    status: (await import('../../functions/resources/status')).handler as Handler,
    control: (await import('../../functions/resources/control')).handler as Handler,
    list: (await import('../../functions/resources/list')).handler as Handler,
  };
  const { makeUser } = await import('../helpers/users');
  admin = (await makeUser('admin')).token;
  user = (await makeUser('user')).token;
});

afterAll(async () => {
  process.env = savedEnv;
  await emulator?.close();
});

const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

const deploy = (endpointName: string) =>
  call(h.deploy, { method: 'POST', token: admin, body: { endpointName, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, dryRun: false } });
const statusOf = (id: string) => call(h.status, { token: user, pathParameters: { resourceId: id } });
// remainingMs: simultaneous control calls queue here for one process (each is a Lambda of its own in AWS).
const controlOf = (id: string, body: Record<string, unknown>) =>
  call(h.control, { method: 'POST', token: admin, pathParameters: { resourceId: id }, body, remainingMs: 120_000 });
const fault = (rule: { target: string; fault: string; model?: string; count?: number }) =>
  fetch(`${emulator.url}/_emulator/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
const endpointOnPlatform = (name: string) => emulator.state.endpoints.get(name);

/** "status/health" as the status endpoint reports it, or "gone" for a 404. */
async function seen(id: string): Promise<string> {
  const res = await statusOf(id);
  if (res.status === 404) return 'gone';
  if (res.status !== 200) throw new Error(`status answered ${res.status}: ${res.raw}`);
  return `${res.body.resource.status}/${res.body.resource.health}`;
}

/** Lets the operations under way on the platform complete, and reads the status that follows. */
async function complete(id: string): Promise<string> {
  emulator.options.lifecycleDelayMs = 0;
  try {
    return await seen(id);
  } finally {
    emulator.options.lifecycleDelayMs = PAUSED;
  }
}

async function inService(name = uniqueName('ep')) {
  const res = await deploy(name);
  expect(res.status).toBe(200);
  expect(await complete(res.body.id)).toBe('InService/healthy');
  return { id: res.body.id as string, name };
}

test('a deploy is Creating (health unknown) until the platform finishes, then InService and healthy', async () => {
  const res = await deploy(uniqueName('create'));
  expect(res.body.status).toBe('Creating');
  expect(await seen(res.body.id)).toBe('Creating/unknown');
  expect(await seen(res.body.id)).toBe('Creating/unknown');
  expect(await complete(res.body.id)).toBe('InService/healthy');
});

test('every action while Creating is 409 naming the status', async () => {
  const res = await deploy(uniqueName('busy'));
  for (const body of [{ action: 'restart' }, { action: 'start' }, { action: 'delete', confirm: true }]) {
    const out = await controlOf(res.body.id, body);
    expect(out.status).toBe(409);
    expect(out.body.error).toBe('Resource is currently Creating; wait until that operation completes (poll the status endpoint) and try again');
  }
});

test('restart: updating at once, then Updating with health unknown, then InService and healthy again', async () => {
  const { id, name } = await inService();
  const out = await controlOf(id, { action: 'restart' });
  expect(out.body).toMatchObject({ success: true, action: 'restart', status: 'updating' });
  // The call did not wait for the platform: the endpoint is still updating when it answers.
  expect(endpointOnPlatform(name)?.status).toBe('Updating');
  expect(await seen(id)).toBe('Updating/unknown');
  expect(await complete(id)).toBe('InService/healthy');
});

test('while Updating, restart, start and delete are 409 with the current status and start no second operation', async () => {
  const { id, name } = await inService();
  expect((await controlOf(id, { action: 'restart' })).status).toBe(200);
  const configs = emulator.state.endpointConfigs.size;
  for (const body of [{ action: 'restart' }, { action: 'start' }, { action: 'delete', confirm: true }]) {
    const out = await controlOf(id, body);
    expect(out.status).toBe(409);
    expect(out.body.error).toBe('Resource is currently Updating; wait until that operation completes (poll the status endpoint) and try again');
  }
  expect(emulator.state.endpointConfigs.size).toBe(configs);
  expect(endpointOnPlatform(name)?.status).toBe('Updating');
});

test('delete: deleting, then Deleting on status, 409 for any action meanwhile, then 404', async () => {
  const { id } = await inService();
  const out = await controlOf(id, { action: 'delete', confirm: true });
  expect(out.body).toMatchObject({ success: true, action: 'delete', status: 'deleting' });
  expect(await seen(id)).toBe('Deleting/unknown');
  const again = await controlOf(id, { action: 'restart' });
  expect(again.status).toBe(409);
  expect(again.body.error).toContain('currently Deleting');
  expect(await complete(id)).toBe('gone');
  expect(await seen(id)).toBe('gone');
});

test('concurrent control calls on one resource: exactly one wins, the others are 409', async () => {
  const { id } = await inService();
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      controlOf(id, i % 3 === 2 ? { action: 'delete', confirm: true } : { action: i % 3 === 0 ? 'restart' : 'start' }),
    ),
  );
  const statuses: Record<number, number> = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  expect(statuses).toEqual({ 200: 1, 409: 11 });
  const winner = results.find((r) => r.status === 200)!;
  const current = winner.body.status === 'deleting' ? 'Deleting' : 'Updating';
  for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toContain(`currently ${current}`);
});

test('a creation that fails shows Failed with its reason; restart is then 409, and start brings it back', async () => {
  const name = uniqueName('fails');
  await fault({ target: 'CreateEndpoint', fault: 'fail', model: name, count: 1 });
  const res = await deploy(name);
  expect(res.status).toBe(200);
  expect(await complete(res.body.id)).toBe('Failed/unknown');
  expect((await statusOf(res.body.id)).body.failure_reason).toContain('did not pass the ping health check');

  const restart = await controlOf(res.body.id, { action: 'restart' });
  expect(restart.status).toBe(409);
  expect(restart.body.error).toBe('Resource is currently Failed: restart needs an InService endpoint; use start to redeploy it');

  const start = await controlOf(res.body.id, { action: 'start' });
  expect(start.body).toMatchObject({ action: 'start', status: 'updating' });
  expect(await seen(res.body.id)).toBe('Updating/unknown');
  expect(await complete(res.body.id)).toBe('InService/healthy');
  expect((await statusOf(res.body.id)).body.failure_reason).toBeUndefined();
});

test('a deploy the platform refuses is 500 with the reason, and leaves nothing behind: no resource, no name, no model', async () => {
  const name = uniqueName('refused');
  await fault({ target: 'CreateEndpoint', fault: '500', model: name, count: 3 });
  const res = await deploy(name);
  expect(res.status).toBe(500);
  expect(res.body.error).toMatch(new RegExp(`^Deployment of endpoint "${name}" failed: The dedicated platform failed \\(status 500\\)`));
  const listed = await call(h.list, { token: user, query: { limit: '100' } });
  expect(listed.body.resources.map((r: { name: string }) => r.name)).not.toContain(name);
  expect([...emulator.state.models.keys()].some((m) => m.startsWith(`${name}-`))).toBe(false);
  expect([...emulator.state.endpointConfigs.keys()].some((c) => c.startsWith(`${name}-`))).toBe(false);
  expect((await deploy(name)).status).toBe(200);
});

test('a restart the platform refuses is 502 and leaves the resource as it was', async () => {
  const { id, name } = await inService();
  await fault({ target: 'UpdateEndpoint', fault: '500', model: name, count: 3 });
  const out = await controlOf(id, { action: 'restart' });
  expect(out.status).toBe(502);
  expect((await statusOf(id)).body.resource).toMatchObject({ status: 'InService', health: 'healthy' });
  expect((await controlOf(id, { action: 'restart' })).body.status).toBe('updating');
});

test('status still answers when CloudWatch fails, with zero metrics and a warning', async () => {
  const { id, name } = await inService();
  await fault({ target: 'GetMetricData', fault: '500', model: name, count: 3 });
  const st = await statusOf(id);
  expect(st.status).toBe(200);
  expect(st.body.metrics).toEqual({
    response_time_ms: 0,
    throughput_per_minute: 0,
    error_rate_percent: 0,
    cpu_utilization: 0,
    memory_utilization: 0,
  });
  expect(st.body.warnings).toEqual(['Metrics are temporarily unavailable; the figures shown are zeros']);
});

test('a hosted connectivity check that fails upstream is 502 carrying the upstream status', async () => {
  const modelId = 'microsoft/phi-3-mini-128k-instruct';
  await fault({ target: 'models.retrieve', fault: '500', model: modelId, count: 3 });
  const res = await call(h.hosted, { method: 'POST', token: admin, body: { modelId } });
  expect(res.status).toBe(502);
  expect(res.body.error).toContain('Hosted API connectivity check failed');
  expect(res.body.error).toContain('500');
  const listed = await call(h.list, { token: user, query: { type: 'hosted' } });
  expect(listed.body.resources).toHaveLength(0);
});
