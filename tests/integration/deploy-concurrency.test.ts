import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { call, type CallResult, type Handler } from '../helpers/invoke';

/**
 * Name uniqueness under concurrency: 50 deploys of 10 names at once give exactly 10 resources, on
 * each platform. Against an emulator of this file's own, with platform time-outs long enough for a
 * burst on a loaded 2-core machine (the service is imported after the environment is set: config is
 * read once, at import).
 *
 * A burst this size can make DynamoDB Local answer slowly enough for the service to say 503 "retry
 * shortly"; the callers here do what that answer asks, as any client would. What is pinned is the
 * outcome: 10 successes, 40 conflicts, 10 resources, 10 endpoints.
 */
jest.setTimeout(300_000);

let emulator: RunningEmulator;
let h: { dedicated: Handler; managed: Handler; list: Handler };
let admin: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, hostedApiKey: 'concurrency-key' });
  Object.assign(process.env, {
    SERVICE_CLOUD_ENDPOINT: emulator.url,
    HOSTED_BASE_URL: `${emulator.url}/v1`,
    HOSTED_API_KEY: 'concurrency-key',
    UPSTREAM_TIMEOUT_MS: '30000',
  });
  h = {
    dedicated: (await import('../../functions/deploy/dedicated')).handler as Handler,
    managed: (await import('../../functions/deploy/managed')).handler as Handler,
    list: (await import('../../functions/resources/list')).handler as Handler,
  };
  admin = (await (await import('../helpers/users')).makeUser('admin')).token;
});

afterAll(async () => {
  process.env = savedEnv;
  await emulator?.close();
});

/** A client that does what a 503 asks: retries shortly. */
async function asClient(send: () => Promise<CallResult>): Promise<CallResult> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 503 || attempt === 5) return res;
    await new Promise((r) => setTimeout(r, 250 * attempt + Math.random() * 250));
  }
}

function tally(results: CallResult[]) {
  const statuses: Record<number, number> = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const errors = [...new Set(results.filter((r) => r.status !== 200 && r.status !== 409).map((r) => r.raw))];
  return { statuses, errors };
}

const names = (prefix: string) => Array.from({ length: 10 }, () => `${prefix}-${randomUUID().slice(0, 8)}`);
const tracked = async (type: string) =>
  (await call(h.list, { token: admin, query: { type, limit: '100' } })).body.resources as { id: string; name: string }[];

test('50 concurrent dedicated deploys of 10 names: 10 succeed, 40 are 409, 10 endpoints exist', async () => {
  const wanted = names('race');
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      asClient(() =>
        call(h.dedicated, {
          method: 'POST',
          token: admin,
          body: { endpointName: wanted[i % 10], instanceType: 'ml.m5.xlarge', inferenceImage: 'img:1', dryRun: false },
        }),
      ),
    ),
  );
  expect(tally(results)).toEqual({ statuses: { 200: 10, 409: 40 }, errors: [] });
  expect(new Set(results.filter((r) => r.status === 200).map((r) => r.body.endpointName))).toEqual(new Set(wanted));
  for (const r of results.filter((x) => x.status === 409))
    expect(r.body.error).toMatch(/^An endpoint named "race-[0-9a-f]{8}" already exists on the dedicated platform/);

  const resources = await tracked('dedicated');
  expect(resources.map((r) => r.name).sort()).toEqual([...wanted].sort());
  expect([...emulator.state.endpoints.keys()].sort()).toEqual([...wanted].sort());
  // One model and one configuration per endpoint: no loser got as far as the platform.
  expect(emulator.state.models.size).toBe(10);
  expect(emulator.state.endpointConfigs.size).toBe(10);
});

test('50 concurrent managed deploys of 10 names: 10 succeed and 40 are 409', async () => {
  const wanted = names('managed');
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      asClient(() =>
        call(h.managed, {
          method: 'POST',
          token: admin,
          body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: wanted[i % 10], dryRun: false },
        }),
      ),
    ),
  );
  expect(tally(results)).toEqual({ statuses: { 200: 10, 409: 40 }, errors: [] });
  expect(new Set(results.filter((r) => r.status === 200).map((r) => r.body.id)).size).toBe(10);
  expect((await tracked('managed')).map((r) => r.name).sort()).toEqual([...wanted].sort());
});
