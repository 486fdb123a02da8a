import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  DeleteEndpointCommand,
  DescribeEndpointCommand,
  SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { alertEvents } from '../helpers/alert-events';
import { call, type Handler } from '../helpers/invoke';
import type { reconcile as Reconcile } from '../../lib/reconcile/pass';

/**
 * Guardrails and the reconciler, against an emulator of this file's own (its ListEndpoints sees only
 * this file's endpoints), lifecycle delays 0 unless a test pauses them. The reconciler runs in process
 * (`reconcile({ now })`); a `now` in the future stands for time having passed (CloudWatch has no
 * datapoints there, so nothing was invoked then). What happens behind the service's back goes through
 * the real SDK clients to the emulator.
 */

const PAUSED = 3_600_000;
jest.setTimeout(60_000);
let emulator: RunningEmulator;
let sagemaker: SageMakerClient;
let runtime: SageMakerRuntimeClient;
let reconcile: typeof Reconcile;
let h: Record<'deploy' | 'managed' | 'status' | 'control' | 'update' | 'list' | 'audit', Handler>;
let admin: string;
let superAdmin: string;
let user: string;

const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, hostedApiKey: 'guardrails-key' });
  Object.assign(process.env, {
    SERVICE_CLOUD_ENDPOINT: emulator.url,
    HOSTED_BASE_URL: `${emulator.url}/v1`,
    RECONCILE_PLATFORM_CALLS_PER_SECOND: '100',
  });
  const client = { region: 'us-east-1', endpoint: emulator.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 };
  sagemaker = new SageMakerClient(client);
  runtime = new SageMakerRuntimeClient(client);
  reconcile = (await import('../../lib/reconcile/pass')).reconcile;
  h = {
    deploy: (await import('../../functions/deploy/dedicated')).handler as Handler,
    managed: (await import('../../functions/deploy/managed')).handler as Handler,
    status: (await import('../../functions/resources/status')).handler as Handler,
    control: (await import('../../functions/resources/control')).handler as Handler,
    update: (await import('../../functions/resources/update')).handler as Handler,
    list: (await import('../../functions/resources/list')).handler as Handler,
    audit: (await import('../../functions/admin/list-audit')).handler as Handler,
  };
  const { makeUser } = await import('../helpers/users');
  admin = (await makeUser('admin')).token;
  superAdmin = (await makeUser('super_admin')).token;
  user = (await makeUser('user')).token;
});

afterAll(async () => {
  process.env = savedEnv;
  sagemaker?.destroy();
  runtime?.destroy();
  await emulator?.close();
});

const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
/** ml.g5.xlarge's shipped price, USD an hour. */
const HOURLY = 1.408;
const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const later = (from: string | number, ms: number) => new Date((typeof from === 'string' ? Date.parse(from) : from) + ms);

const deploy = (endpointName: string, extra: Record<string, unknown> = {}) =>
  call(h.deploy, {
    method: 'POST',
    token: admin,
    body: { endpointName, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, dryRun: false, ...extra },
  });
const statusOf = (id: string) => call(h.status, { token: user, pathParameters: { resourceId: id } });
const controlOf = (id: string, body: Record<string, unknown>) =>
  call(h.control, { method: 'POST', token: admin, pathParameters: { resourceId: id }, body });
const patch = (id: string, body: unknown, token = admin) => call(h.update, { method: 'PATCH', token, pathParameters: { resourceId: id }, body });
const stored = async (id: string) =>
  ((await call(h.list, { token: user, query: { limit: '100', type: 'dedicated' } })).body.resources as any[]).find((r) => r.id === id);
const invoke = (endpointName: string) =>
  runtime.send(
    new InvokeEndpointCommand({
      EndpointName: endpointName,
      ContentType: 'application/json',
      Body: new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'still here' }] })),
    }),
  );

/** Audit entries about a target (newest first). */
async function auditOf(target: string) {
  const res = await call(h.audit, { token: superAdmin, query: { limit: '100' } });
  return (res.body.entries as any[]).filter((e) => e.target?.includes(target));
}

/** A deployed endpoint, InService (the first status read after creation sees it so). */
async function inService(extra: Record<string, unknown> = {}, name = uniqueName('gr')) {
  const res = await deploy(name, extra);
  expect(res.status).toBe(200);
  const st = await statusOf(res.body.id);
  expect(st.body.resource.status).toBe('InService');
  return { id: res.body.id as string, name, createdAt: st.body.resource.created_at as string };
}

describe('deploy: the guardrails in the plan and on the resource', () => {
  test('the dry-run plan states the idle timeout and the budget, the hourly price and how many hours the budget buys', async () => {
    const res = await call(h.deploy, {
      method: 'POST',
      token: admin,
      body: {
        endpointName: uniqueName('plan'),
        instanceType: 'ml.g5.xlarge',
        instanceCount: 2,
        modelPackageArn: PACKAGE,
        idleTimeoutMinutes: 60,
        monthlyBudgetUsd: 100,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.plan.guardrails).toEqual({
      idleTimeoutMinutes: 60,
      monthlyBudgetUsd: 100,
      hourly_usd: 2.816,
      budget_hours: 35.5,
      effects: [
        expect.stringContaining('After 60 minutes without an invocation'),
        expect.stringContaining('The budget of $100.00 a month buys 35.5 hours at $2.82 an hour'),
      ],
    });
  });

  test('a plan without guardrails says the endpoint bills until it is deleted, used or not', async () => {
    const res = await call(h.deploy, {
      method: 'POST',
      token: admin,
      body: { endpointName: uniqueName('plan'), instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE },
    });
    expect(res.body.plan.guardrails).toMatchObject({ idleTimeoutMinutes: null, monthlyBudgetUsd: null, budget_hours: null });
    expect(res.body.plan.guardrails.effects).toEqual(['No guardrail: the endpoint bills $1.41 an hour until it is deleted, used or not']);
  });

  test.each([
    [{ idleTimeoutMinutes: 0 }, 'idleTimeoutMinutes'],
    [{ idleTimeoutMinutes: 10_081 }, 'idleTimeoutMinutes'],
    [{ idleTimeoutMinutes: 1.5 }, 'idleTimeoutMinutes'],
    [{ monthlyBudgetUsd: 0 }, 'monthlyBudgetUsd'],
    [{ monthlyBudgetUsd: 1e-10 }, 'monthlyBudgetUsd'], // below the smallest amount the table holds exactly
    [{ monthlyBudgetUsd: 1e10 }, 'monthlyBudgetUsd'],
  ])('%j is refused with a 400 naming the field, and nothing is created', async (extra, field) => {
    const name = uniqueName('bad');
    const res = await deploy(name, extra);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
    expect(emulator.state.endpoints.has(name)).toBe(false);
  });

  test('a real deploy keeps its guardrails, shows them in the answer and in the status, and bills from the creation request', async () => {
    const res = await deploy(uniqueName('kept'), { idleTimeoutMinutes: 30, monthlyBudgetUsd: 50 });
    expect(res.body.guardrails).toEqual({ idle_timeout_minutes: 30, monthly_budget_usd: 50 });
    const st = await statusOf(res.body.id);
    expect(st.body.guardrails).toMatchObject({
      idle_timeout_minutes: 30,
      monthly_budget_usd: 50,
      billing: true,
      stopped: null,
      last_chat_at: null,
      idle_stop_not_before: later(st.body.resource.created_at, 30 * 60_000).toISOString(),
    });
    expect(st.body.guardrails.month_to_date_usd).toBe(st.body.costs.month_to_date_usd);
    expect(st.body.guardrails.budget_remaining_usd).toBeCloseTo(50 - st.body.costs.month_to_date_usd, 5);
  });
});

describe('PATCH /api/resources/{resourceId}: changing the guardrails later', () => {
  test('sets and clears the idle timeout and the budget, and each change is audited', async () => {
    const { id } = await inService();
    const set = await patch(id, { idleTimeoutMinutes: 15, monthlyBudgetUsd: 20 });
    expect(set.status).toBe(200);
    expect(set.body.guardrails).toMatchObject({ idle_timeout_minutes: 15, monthly_budget_usd: 20 });
    const cleared = await patch(id, { monthlyBudgetUsd: null });
    expect(cleared.body.guardrails).toMatchObject({ idle_timeout_minutes: 15, monthly_budget_usd: null, budget_remaining_usd: null });
    expect((await statusOf(id)).body.guardrails).toMatchObject({ idle_timeout_minutes: 15, monthly_budget_usd: null });
    expect((await auditOf(id)).filter((e) => e.action === 'resource.guardrails')).toHaveLength(2);
  });

  test('refuses an empty body, unknown fields and bad values with 400, users with 403, managed resources with 400', async () => {
    const { id } = await inService();
    expect((await patch(id, {})).status).toBe(400);
    expect((await patch(id, { budget: 5 })).status).toBe(400);
    expect((await patch(id, { idleTimeoutMinutes: 0 })).status).toBe(400);
    expect((await patch(id, { idleTimeoutMinutes: 5 }, user)).status).toBe(403);
    const managed = await call(h.managed, {
      method: 'POST',
      token: admin,
      body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: uniqueName('m'), dryRun: false },
    });
    const refused = await patch(managed.body.id, { idleTimeoutMinutes: 5 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Guardrails apply to dedicated resources only: managed resources bill per token and cost nothing while idle');
    expect((await patch(randomUUID(), { idleTimeoutMinutes: 5 })).status).toBe(404);
  });
});

describe('the reconciler keeps tracked resources true to the platform', () => {
  test('moves a Creating endpoint to InService once the platform has created it, recorded as the reconciler', async () => {
    emulator.options.lifecycleDelayMs = PAUSED;
    let id: string;
    try {
      const res = await deploy(uniqueName('create'));
      id = res.body.id;
      await reconcile();
      expect((await stored(id)).status).toBe('Creating');
    } finally {
      emulator.options.lifecycleDelayMs = 0;
    }
    const report = await reconcile();
    expect(report.changes).toBeGreaterThanOrEqual(1);
    expect((await stored(id)).status).toBe('InService');
    const [entry] = (await auditOf(id)).filter((e) => e.action === 'resource.operation_completed');
    expect(entry).toMatchObject({
      actor: { username: 'reconciler', role: 'system' },
      reason: 'Creating finished: the endpoint is InService',
      outcome: 'success',
    });
  });

  test("moves a creation the platform fails to Failed with the platform's reason, audited", async () => {
    const name = uniqueName('fails');
    await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'CreateEndpoint', fault: 'fail', model: name, count: 1 }),
    });
    const { body } = await deploy(name);
    await reconcile();
    expect((await stored(body.id)).status).toBe('Failed');
    const [entry] = (await auditOf(body.id)).filter((e) => e.action === 'resource.failed');
    expect(entry.reason).toContain('did not pass the ping health check');
    const st = await statusOf(body.id);
    expect(st.body.failure_reason).toContain('did not pass the ping health check');
    // A failed endpoint bills nothing.
    expect(st.body.costs.hourly_cost).toBe(0);
  });

  test('notices an endpoint deleted outside the service: kept, marked OutOfService, no longer billed, audited', async () => {
    const { id, name } = await inService({ monthlyBudgetUsd: 1000 });
    await sagemaker.send(new DeleteEndpointCommand({ EndpointName: name }));
    const report = await reconcile();
    expect(report.changes).toBeGreaterThanOrEqual(1);
    expect((await stored(id)).status).toBe('OutOfService');
    const st = await statusOf(id);
    expect(st.status).toBe(200);
    expect(st.body.resource).toMatchObject({ status: 'OutOfService', health: 'unknown' });
    expect(st.body.costs.hourly_cost).toBe(0);
    const [entry] = (await auditOf(id)).filter((e) => e.action === 'resource.vanished');
    expect(entry.reason).toBe('The endpoint no longer exists on the platform (deleted outside this service)');
  });

  test('notices an instance count changed outside the service: stored, billed at the new count, audited', async () => {
    const { id, name } = await inService();
    await sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: name,
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 3 }],
      }),
    );
    await reconcile();
    expect((await stored(id)).instance_count).toBe(3);
    const st = await statusOf(id);
    expect(st.body.costs.hourly_cost).toBeCloseTo(3 * HOURLY, 6);
    const [entry] = (await auditOf(id)).filter((e) => e.action === 'resource.changed_outside');
    expect(entry).toMatchObject({ actor: { username: 'reconciler' }, reason: 'Changed outside this service: instance count from 1 to 3' });
  });

  test('describes nothing for a resource whose listing has not changed since the last pass', async () => {
    await inService();
    await reconcile();
    const report = await reconcile();
    expect(report.platformCalls.DescribeEndpoint ?? 0).toBe(0);
    expect(report.platformCalls.ListEndpoints).toBe(1);
  });

  test('two passes at once: one runs, the other skips (the lease)', async () => {
    const reports = await Promise.all([reconcile(), reconcile()]);
    expect(reports.filter((r) => r.skipped === 'Another reconciliation pass holds the lease')).toHaveLength(1);
    expect(reports.filter((r) => !r.skipped)).toHaveLength(1);
  });
});

describe('idle timeout', () => {
  test('stops an endpoint with no invocation for its timeout: OutOfService, platform endpoint deleted, model and configuration kept, audited', async () => {
    const { id, name, createdAt } = await inService({ idleTimeoutMinutes: 5 });
    const configs = emulator.state.endpointConfigs.size;
    const models = emulator.state.models.size;
    const report = await reconcile({ now: later(createdAt, 6 * 60_000) });
    expect(report.stops).toContainEqual({ resourceId: id, endpointName: name, reason: 'idle' });
    const onPlatform = ((await (await fetch(`${emulator.url}/_emulator/state`)).json()) as any).endpoints.map((e: { name: string }) => e.name);
    expect(onPlatform).not.toContain(name);
    expect(emulator.state.endpointConfigs.size).toBe(configs);
    expect(emulator.state.models.size).toBe(models);

    const st = await statusOf(id);
    expect(st.status).toBe(200);
    expect(st.body.resource).toMatchObject({ status: 'OutOfService', health: 'unknown' });
    expect(st.body.costs).toMatchObject({ hourly_cost: 0, daily_cost: 0, monthly_estimate: 0, pricing_model: 'hourly' });
    expect(st.body.guardrails.stopped).toMatchObject({ reason: 'idle', detail: expect.stringContaining('No invocation for 5 minutes') });
    const [entry] = (await auditOf(id)).filter((e) => e.action === 'resource.idle_stop');
    expect(entry).toMatchObject({
      actor: { id: '00000000-0000-0000-0000-000000000000', username: 'reconciler', role: 'system' },
      outcome: 'success',
    });
    expect(entry.reason).toContain('No invocation for 5 minutes');
  });

  test('does not stop an endpoint invoked directly on the platform within its timeout, and asks again only when it could be idle', async () => {
    const { id, name, createdAt } = await inService({ idleTimeoutMinutes: 1 });
    // The invocation must fall inside the minute before the pass's `now`.
    await new Promise((r) => setTimeout(r, 1100));
    await invoke(name);
    const first = await reconcile({ now: later(createdAt, 61_000) });
    expect(first.stops.map((s) => s.resourceId)).not.toContain(id);
    expect((await stored(id)).status).toBe('InService');
    const notBefore = (await statusOf(id)).body.guardrails.idle_stop_not_before as string;
    expect(Date.parse(notBefore)).toBeGreaterThan(Date.parse(createdAt) + 61_000);

    // Before then the pass does not even ask CloudWatch about it; after, nothing more came: stopped.
    const early = await reconcile({ now: later(notBefore, -1000) });
    expect(early.stops.map((s) => s.resourceId)).not.toContain(id);
    const due = await reconcile({ now: later(notBefore, 1000) });
    expect(due.stops).toContainEqual({ resourceId: id, endpointName: name, reason: 'idle' });
  });

  test('start after an idle stop creates the endpoint again: creating, then InService, billing again, the idle clock restarted', async () => {
    const { id, name, createdAt } = await inService({ idleTimeoutMinutes: 5 });
    await reconcile({ now: later(createdAt, 6 * 60_000) });
    // The stop's deletion completes (lifecycle 0) at the next look.
    expect((await statusOf(id)).body.resource.status).toBe('OutOfService');
    emulator.options.lifecycleDelayMs = PAUSED;
    try {
      const start = await controlOf(id, { action: 'start' });
      expect(start.status).toBe(200);
      expect(start.body).toMatchObject({ action: 'start', status: 'creating' });
      expect(emulator.state.endpoints.get(name)?.status).toBe('Creating');
      const st = await statusOf(id);
      expect(st.body.resource.status).toBe('Creating');
      expect(st.body.guardrails).toMatchObject({ stopped: null, billing: true });
    } finally {
      emulator.options.lifecycleDelayMs = 0;
    }
    const st = await statusOf(id);
    expect(st.body.resource).toMatchObject({ status: 'InService', health: 'healthy' });
    expect(st.body.costs.hourly_cost).toBe(HOURLY);
    expect(Date.parse(st.body.guardrails.idle_stop_not_before)).toBeGreaterThan(Date.now() + 4 * 60_000);
    // The same endpoint config serves again, tagged for the resource.
    const tags = ((await (await fetch(`${emulator.url}/_emulator/state`)).json()) as any).endpoints.find((e: any) => e.name === name).tags;
    expect(tags).toMatchObject({ 'managed-by': 'model-ops', 'model-ops:resource-id': id });
  });

  test('restart of a stopped endpoint is 409 (use start)', async () => {
    const { id, createdAt } = await inService({ idleTimeoutMinutes: 5 });
    await reconcile({ now: later(createdAt, 6 * 60_000) });
    const restart = await controlOf(id, { action: 'restart' });
    expect(restart.status).toBe(409);
    expect(restart.body.error).toBe('Resource is currently OutOfService: restart needs an InService endpoint; use start to redeploy it');
  });

  /** An endpoint an idle stop took OutOfService, its DeleteEndpoint still running on the platform. */
  async function stoppedStillDeleting() {
    const { id, name, createdAt } = await inService({ idleTimeoutMinutes: 5 });
    emulator.options.lifecycleDelayMs = PAUSED;
    await reconcile({ now: later(createdAt, 6 * 60_000) });
    expect(emulator.state.endpoints.get(name)?.status).toBe('Deleting');
    const st = await statusOf(id);
    expect(st.body.resource.status).toBe('OutOfService');
    return { id, name };
  }

  test('start while the automatic stop’s deletion still runs is accepted: Creating at once, created again by the status read that finds the deletion finished, then InService', async () => {
    let stopped: { id: string; name: string } | undefined;
    try {
      stopped = await stoppedStillDeleting();
      const start = await controlOf(stopped.id, { action: 'start' });
      expect(start.status).toBe(200);
      expect(start.body).toMatchObject({ success: true, action: 'start', status: 'creating' });
      expect(start.body.message).toContain("as soon as the automatic stop's deletion has finished");
      // Nothing is asked of the platform yet, and the resource says it is on its way back.
      expect(emulator.state.endpoints.get(stopped.name)?.status).toBe('Deleting');
      const waiting = await statusOf(stopped.id);
      expect(waiting.body.resource.status).toBe('Creating');
      expect(waiting.body.guardrails.billing).toBe(true);
      expect((await controlOf(stopped.id, { action: 'start' })).status).toBe(409);
    } finally {
      emulator.options.lifecycleDelayMs = 0;
    }
    const { id, name } = stopped;
    // The deletion finishes at this look; the same read creates the endpoint again from the kept configuration.
    const recreating = await statusOf(id);
    expect(recreating.body.resource.status).toBe('Creating');
    expect(emulator.state.endpoints.has(name)).toBe(true);
    const st = await statusOf(id);
    expect(st.body.resource).toMatchObject({ status: 'InService', health: 'healthy' });
    expect(st.body.guardrails.stopped).toBeNull();
    expect(st.body.costs.hourly_cost).toBe(HOURLY);
  });

  test('start while the automatic stop’s deletion still runs is carried out by the reconciler once the deletion has finished', async () => {
    let stopped: { id: string; name: string } | undefined;
    try {
      stopped = await stoppedStillDeleting();
      expect((await controlOf(stopped.id, { action: 'start' })).body.status).toBe('creating');
      // A pass while the deletion runs changes nothing.
      await reconcile();
      expect(emulator.state.endpoints.get(stopped.name)?.status).toBe('Deleting');
    } finally {
      emulator.options.lifecycleDelayMs = 0;
    }
    const { id, name } = stopped;
    // Let the deletion finish on the platform, seen by nobody but the reconciler.
    await expect(sagemaker.send(new DescribeEndpointCommand({ EndpointName: name }))).rejects.toThrow(/Could not find endpoint/);
    await reconcile();
    expect(emulator.state.endpoints.has(name)).toBe(true);
    await reconcile();
    expect(await stored(id)).toMatchObject({ status: 'InService', health: 'healthy' });
    const started = (await auditOf(id)).filter((e) => e.action === 'resource.operation_started');
    expect(started).toHaveLength(1);
    expect(started[0].actor.username).toBe('reconciler');
  });

  test('delete of a stopped endpoint removes the resource and its kept configuration and model', async () => {
    const { id, name, createdAt } = await inService({ idleTimeoutMinutes: 5 });
    await reconcile({ now: later(createdAt, 6 * 60_000) });
    const configsOf = () => [...emulator.state.endpointConfigs.keys()].filter((c) => c.startsWith(`${name}-`));
    expect(configsOf()).toHaveLength(1);
    const out = await controlOf(id, { action: 'delete', confirm: true });
    expect(out.body).toMatchObject({ success: true, status: 'deleting' });
    expect(configsOf()).toHaveLength(0);
    expect([...emulator.state.models.keys()].filter((m) => m.startsWith(`${name}-`))).toHaveLength(0);
    expect((await statusOf(id)).status).toBe(404);
  });
});

describe('monthly budget', () => {
  test("stops an endpoint whose month's cost reached its budget, and start is refused until the budget is raised", async () => {
    // $0.01 is 25.6 seconds of one ml.g5.xlarge.
    const { id, name, createdAt } = await inService({ monthlyBudgetUsd: 0.01 });
    const report = await reconcile({ now: later(createdAt, 60_000) });
    expect(report.stops).toContainEqual({ resourceId: id, endpointName: name, reason: 'budget' });
    const [entry] = (await auditOf(id)).filter((e) => e.action === 'resource.budget_stop');
    expect((await alertEvents()).filter((e) => e.event === 'endpoint.stopped' && e.resource_id === id)).toEqual([
      {
        id: expect.any(String),
        at: expect.any(String),
        event: 'endpoint.stopped',
        resource_id: id,
        endpoint_name: name,
        reason: 'budget',
        detail: entry.reason,
      },
    ]);
    // 60 s of $1.408 an hour, in the one rounding of money the service shows (lib/pricing/money.ts).
    expect(entry.reason).toMatch(/^This month's cost \$0\.0235 reached the monthly budget of \$0\.01/);

    const refused = await controlOf(id, { action: 'start' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('The monthly budget of $0.01 is spent');
    expect((await patch(id, { monthlyBudgetUsd: 100 })).body.warnings).toEqual(['The endpoint is stopped: action start brings it back']);
    expect((await controlOf(id, { action: 'start' })).body.status).toBe('creating');
    expect((await statusOf(id)).body.resource.status).toBe('InService');
  });

  test('month to date counts the billable hours at the instance price, and stops counting while stopped', async () => {
    const { id, createdAt } = await inService({ monthlyBudgetUsd: 0.01 });
    await reconcile({ now: later(createdAt, 60_000) });
    const a = (await statusOf(id)).body.costs.month_to_date_usd;
    // A minute of one instance, billed up to the stop.
    expect(a).toBeCloseTo((HOURLY * 60) / 3600, 3);
    await new Promise((r) => setTimeout(r, 200));
    expect((await statusOf(id)).body.costs.month_to_date_usd).toBe(a);
  });
});

describe('budget alert thresholds (scope kind "endpoint")', () => {
  test('are set in the PATCH that sets the budget, shown in the guardrails, and each fires once per endpoint and month at the pass that finds it reached', async () => {
    const { id, name, createdAt } = await inService();
    // $0.01 is 25.6 seconds of one ml.g5.xlarge: half of it 12.8 s.
    const set = await patch(id, { monthlyBudgetUsd: 0.01, alert_thresholds: [1, 0.5] });
    expect(set.status).toBe(200);
    expect(set.body.guardrails).toMatchObject({ monthly_budget_usd: 0.01, alert_thresholds: [0.5, 1] });
    expect((await statusOf(id)).body.guardrails.alert_thresholds).toEqual([0.5, 1]);
    const { readClaims } = await import('../../tables/alerts');
    const { db, TABLE } = await import('../../tables/client');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const owner = { kind: 'endpoint', id } as const;
    const at = later(createdAt, 15_000);
    const period = at.toISOString().slice(0, 7);
    const claimed = async () => {
      const has = await readClaims([0.5, 1].map((threshold) => ({ owner, period, threshold })));
      return [0.5, 1].filter((t) => has(owner, period, t));
    };

    await reconcile({ now: at });
    expect(await claimed()).toEqual([0.5]);
    const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: { PK: `ALERT#ENDPOINT#${id}`, SK: `T#${period}#0.5` } }));
    expect(JSON.parse(Item?.payload)).toMatchObject({
      event: 'budget.threshold',
      scope: { kind: 'endpoint', id, name },
      threshold: 0.5,
      budget_usd: 0.01,
      period,
    });
    // A second pass at the same moment claims nothing more; a later one, past the budget, claims 100 % and stops it.
    await reconcile({ now: at });
    expect(await claimed()).toEqual([0.5]);
    const report = await reconcile({ now: later(createdAt, 60_000) });
    expect(await claimed()).toEqual([0.5, 1]);
    expect(report.stops).toContainEqual({ resourceId: id, endpointName: name, reason: 'budget' });
  });

  test('are refused with 400 when repeated or out of range, and null restores the default', async () => {
    const { id } = await inService();
    expect((await patch(id, { alert_thresholds: [0.5, 0.5] })).status).toBe(400);
    expect((await patch(id, { alert_thresholds: [1.5] })).status).toBe(400);
    expect((await patch(id, { alert_thresholds: [0.3] })).body.guardrails.alert_thresholds).toEqual([0.3]);
    expect((await patch(id, { alert_thresholds: null })).body.guardrails.alert_thresholds).toEqual([0.8, 1]);
  });
});

describe('claims: a control call and the reconciler racing on one resource', () => {
  test('exactly one wins: the restart (the stop is skipped) or the stop (the restart is 409)', async () => {
    const { id } = await inService({ monthlyBudgetUsd: 0.000001 });
    const [control, report] = await Promise.all([controlOf(id, { action: 'restart' }), reconcile()]);
    const stopped = report.stops.some((s) => s.resourceId === id);
    expect([control.status === 200, stopped].filter(Boolean)).toHaveLength(1);
    if (stopped) expect(control.status).toBe(409);
    const after = await stored(id);
    expect(after.status).toEqual(stopped ? 'OutOfService' : expect.stringMatching(/^(Updating|InService)$/));
  });
});
