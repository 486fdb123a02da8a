import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { validateResponse } from '../e2e/contract';
import { call, type Handler } from '../helpers/invoke';

/**
 * What a resource can do, in its payload (docs/openapi.yaml Resource: lifecycle, billing,
 * capabilities, actions), so that a client reads it instead of deciding by the platform's name. Its
 * own emulator holds endpoint operations under way (PAUSED) until a test lets them complete, so each
 * state is seen however slowly the machine runs. Every answer read here is checked against the
 * document. The service's modules are imported only after the environment points at the emulator.
 */

const PAUSED = 3_600_000;
jest.setTimeout(60_000);
let emulator: RunningEmulator;
let h: Record<'dedicated' | 'managed' | 'hosted' | 'status' | 'control' | 'list', Handler>;
let admin: string;
let user: string;
const ids: Record<'dedicated' | 'managed' | 'hosted', string> = { dedicated: '', managed: '', hosted: '' };
let endpointName: string;

const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: PAUSED, hostedApiKey: 'abilities-key' });
  Object.assign(process.env, { SERVICE_CLOUD_ENDPOINT: emulator.url, HOSTED_BASE_URL: `${emulator.url}/v1`, HOSTED_API_KEY: 'abilities-key' });
  const handlerOf = async (path: string) => (await import(path)).handler as Handler;
  h = {
    dedicated: await handlerOf('../../functions/deploy/dedicated'),
    managed: await handlerOf('../../functions/deploy/managed'),
    hosted: await handlerOf('../../functions/deploy/hosted'),
    status: await handlerOf('../../functions/resources/status'),
    control: await handlerOf('../../functions/resources/control'),
    list: await handlerOf('../../functions/resources/list'),
  };
  const { makeUser } = await import('../helpers/users');
  admin = (await makeUser('admin')).token;
  user = (await makeUser('user')).token;
  const suffix = randomUUID().slice(0, 8);
  endpointName = `abilities-${suffix}`;
  const deploy = async (handler: Handler, body: Record<string, unknown>) => {
    const res = await call(handler, { method: 'POST', token: admin, body });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  ids.dedicated = await deploy(h.dedicated, {
    endpointName,
    instanceType: 'ml.g5.xlarge',
    modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1',
    dryRun: false,
  });
  ids.managed = await deploy(h.managed, { modelId: 'amazon.nova-lite-v1:0', endpointName: `nova-${suffix}`, dryRun: false });
  ids.hosted = await deploy(h.hosted, { modelId: 'meta/llama-3.1-8b-instruct', endpointName: `llama-${suffix}` });
});

afterAll(async () => {
  process.env = savedEnv;
  await emulator?.close();
});

type Shown = { id: string; lifecycle: string; billing: string; capabilities: Record<string, unknown>; actions: string[] };

/** GET /api/resources as the caller, checked against the document: the three resources of this file by platform. */
async function listed(token: string): Promise<Record<keyof typeof ids, Shown>> {
  const res = await call(h.list, { token, query: { limit: '100' } });
  validateResponse('GET', '/api/resources', res.status, res.body);
  const byId = new Map((res.body.resources as Shown[]).map((r) => [r.id, r]));
  return { dedicated: byId.get(ids.dedicated)!, managed: byId.get(ids.managed)!, hosted: byId.get(ids.hosted)! };
}

/** GET /api/resources/{id}/status as the caller, checked against the document: the resource it shows. */
async function status(id: string, token = admin): Promise<Shown & { status: string }> {
  const path = `/api/resources/${id}/status`;
  const res = await call(h.status, { token, pathParameters: { resourceId: id } });
  validateResponse('GET', path, res.status, res.body);
  return res.body.resource;
}

const control = (id: string, body: Record<string, unknown>) =>
  call(h.control, { method: 'POST', token: admin, pathParameters: { resourceId: id }, body });

/** Lets the platform's operations under way complete, and reads the status that follows. */
async function completed(id: string) {
  emulator.options.lifecycleDelayMs = 0;
  try {
    return await status(id);
  } finally {
    emulator.options.lifecycleDelayMs = PAUSED;
  }
}

test('each resource says how it lives and bills: an endpoint by the hour, platform-run models per token', async () => {
  const shown = await listed(user);
  expect(shown.dedicated).toMatchObject({ lifecycle: 'endpoint', billing: 'per_hour' });
  expect(shown.managed).toMatchObject({ lifecycle: 'access', billing: 'per_token' });
  expect(shown.hosted).toMatchObject({ lifecycle: 'access', billing: 'per_token' });
});

test("each resource carries its model's capabilities, the ones the service decides a request by", async () => {
  const shown = await listed(user);
  // Nova Lite: chat, streams, reads images, calls tools, caches prompts for 5 minutes, Standard tier only, 5,000 tokens out.
  expect(shown.managed.capabilities).toEqual({
    chat: true,
    embeddings: false,
    streaming: true,
    tools: true,
    json_output: true,
    image_input: true,
    prompt_caching: true,
    cache_ttls: ['5m'],
    service_tiers: ['default'],
    max_output_tokens: 5_000,
  });
  // A chat container on an endpoint: no prompt cache, one tier, its output bound is its own configuration.
  expect(shown.dedicated.capabilities).toMatchObject({
    chat: true,
    embeddings: false,
    prompt_caching: false,
    cache_ttls: [],
    service_tiers: ['default'],
  });
  expect(shown.dedicated.capabilities.max_output_tokens).toBeNull();
  expect(shown.hosted.capabilities).toMatchObject({ chat: true, embeddings: false, prompt_caching: false });
});

test('a user may do nothing to any resource; the listing and the status agree', async () => {
  const shown = await listed(user);
  expect([shown.dedicated.actions, shown.managed.actions, shown.hosted.actions]).toEqual([[], [], []]);
  expect((await status(ids.managed, user)).actions).toEqual([]);
});

test('an admin may delete a platform-run resource and set who uses it; every other control is refused', async () => {
  const shown = await listed(admin);
  expect(shown.managed.actions).toEqual(['delete', 'update_access']);
  expect(shown.hosted.actions).toEqual(['delete', 'update_access']);
  for (const action of ['start', 'stop', 'restart']) expect((await control(ids.hosted, { action })).status).toBe(400);
});

test("an endpoint's actions follow its status, and are the ones the service accepts", async () => {
  // Creating: nothing can be controlled until the platform finishes.
  expect((await status(ids.dedicated)).actions).toEqual(['update_guardrails', 'update_access']);
  expect((await control(ids.dedicated, { action: 'restart' })).status).toBe(409);

  const running = await completed(ids.dedicated);
  expect(running).toMatchObject({ status: 'InService', actions: ['restart', 'delete', 'update_guardrails', 'update_access'] });
  expect((await control(ids.dedicated, { action: 'stop' })).status).toBe(400);
  expect((await control(ids.dedicated, { action: 'restart' })).status).toBe(200);
  expect(await status(ids.dedicated)).toMatchObject({ status: 'Updating', actions: ['update_guardrails', 'update_access'] });

  // Deleted behind the service's back: start creates it again from its kept configuration.
  await completed(ids.dedicated);
  emulator.state.endpoints.delete(endpointName);
  expect(await status(ids.dedicated)).toMatchObject({ status: 'OutOfService', actions: ['start', 'delete', 'update_guardrails', 'update_access'] });
  expect((await control(ids.dedicated, { action: 'restart' })).status).toBe(409);
  expect((await control(ids.dedicated, { action: 'start' })).status).toBe(200);
  expect(await status(ids.dedicated)).toMatchObject({ status: 'Creating', actions: ['update_guardrails', 'update_access'] });
});
