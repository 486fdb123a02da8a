import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { alertEvents } from '../helpers/alert-events';
import { call, type Handler } from '../helpers/invoke';
import type { reconcile as Reconcile } from '../../lib/reconcile/pass';

/**
 * Orphans (tagged endpoints no resource tracks) and crash safety of the dedicated deploy, against an
 * emulator of this file's own, lifecycle delays 0. Endpoints created behind the service's back come
 * from the emulator's control API; lost answers from its `lost` fault (the call is carried out, the
 * answer never comes).
 */

jest.setTimeout(60_000);
let emulator: RunningEmulator;
let reconcile: typeof Reconcile;
let h: Record<'deploy' | 'status' | 'list' | 'orphans' | 'adopt' | 'remove' | 'audit', Handler>;
let admin: string;
let superAdmin: string;
let user: string;
let adminId: string;

const savedEnv = { ...process.env };
const STAGE = 'local';

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, hostedApiKey: 'orphans-key' });
  Object.assign(process.env, {
    SERVICE_CLOUD_ENDPOINT: emulator.url,
    HOSTED_BASE_URL: `${emulator.url}/v1`,
    STAGE,
    RECONCILE_PLATFORM_CALLS_PER_SECOND: '100',
    // A lost answer is given up on quickly.
    UPSTREAM_TIMEOUT_MS: '400',
  });
  reconcile = (await import('../../lib/reconcile/pass')).reconcile;
  h = {
    deploy: (await import('../../functions/deploy/dedicated')).handler as Handler,
    status: (await import('../../functions/resources/status')).handler as Handler,
    list: (await import('../../functions/resources/list')).handler as Handler,
    orphans: (await import('../../functions/orphans/list')).handler as Handler,
    adopt: (await import('../../functions/orphans/adopt')).handler as Handler,
    remove: (await import('../../functions/orphans/delete')).handler as Handler,
    audit: (await import('../../functions/admin/list-audit')).handler as Handler,
  };
  const { makeUser } = await import('../helpers/users');
  const a = await makeUser('admin');
  admin = a.token;
  adminId = a.user.id;
  superAdmin = (await makeUser('super_admin')).token;
  user = (await makeUser('user')).token;
});

afterAll(async () => {
  process.env = savedEnv;
  await emulator?.close();
});

const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const ours = (resourceId = randomUUID(), stage = STAGE) => ({
  'managed-by': 'model-ops',
  'model-ops:stage': stage,
  'model-ops:resource-id': resourceId,
});

const emulatorControl = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${emulator.url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
};
/** An endpoint someone (or something) created on the platform, not through this service's API. */
const behindTheBack = (name: string, tags: Record<string, string>, instanceType = 'ml.g5.2xlarge') =>
  emulatorControl('POST', '/endpoints', { name, instanceType, instanceCount: 2, tags });
const fault = (rule: Record<string, unknown>) => emulatorControl('POST', '/faults', rule);
const platformEndpoints = async () => (await emulatorControl('GET', '/state')).endpoints as { name: string; tags: Record<string, string> }[];

const deploy = (endpointName: string, extra: Record<string, unknown> = {}, token = admin) =>
  call(h.deploy, { method: 'POST', token, body: { endpointName, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, dryRun: false, ...extra } });
const orphans = async () => (await call(h.orphans, { token: admin, query: { limit: '100' } })).body;
const adopt = (name: string, body: Record<string, unknown> = {}) =>
  call(h.adopt, { method: 'POST', token: admin, pathParameters: { endpointName: name }, body });
const remove = (name: string, query: Record<string, string> = { confirm: 'true' }) =>
  call(h.remove, { method: 'DELETE', token: admin, pathParameters: { endpointName: name }, query });
const tracked = async () => (await call(h.list, { token: user, query: { limit: '100', type: 'dedicated' } })).body.resources as any[];
async function auditOf(target: string) {
  const res = await call(h.audit, { token: superAdmin, query: { limit: '100' } });
  return (res.body.entries as any[]).filter((e) => e.target?.includes(target));
}

describe('orphans: endpoints with this service tags that no resource tracks', () => {
  test('are found by the next pass, recorded once with what they cost an hour, and each find is audited', async () => {
    const name = uniqueName('orphan');
    const resourceId = randomUUID();
    await behindTheBack(name, ours(resourceId));
    const first = await reconcile();
    expect(first.orphansFound).toEqual([name]);
    const second = await reconcile();
    expect(second.orphansFound).toEqual([]);

    const listed = await orphans();
    expect(listed.lastReconciledAt).toBe(second.startedAt);
    expect(listed.orphans).toContainEqual({
      kind: 'endpoint',
      endpoint_name: name,
      endpoint_arn: `arn:aws:sagemaker:us-east-1:123456789012:endpoint/${name}`,
      status: 'InService',
      platform_created_at: expect.any(String),
      found_at: first.startedAt,
      resource_id: resourceId,
      instance_type: 'ml.g5.2xlarge',
      instance_count: 2,
      hourly_cost_usd: 2 * 1.515,
    });
    const entries = (await auditOf(name)).filter((e) => e.action === 'orphan.found');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: { username: 'reconciler', role: 'system' } });
    expect(entries[0].reason).toContain(`resource ${resourceId}`);
    // The alert channels hear of it once (the second pass found nothing new).
    expect((await alertEvents()).filter((e) => e.endpoint_name === name)).toEqual([
      {
        id: expect.any(String),
        at: first.startedAt,
        event: 'orphan.found',
        kind: 'endpoint',
        endpoint_name: name,
        endpoint_arn: `arn:aws:sagemaker:us-east-1:123456789012:endpoint/${name}`,
        status: 'InService',
        resource_id: resourceId,
      },
    ]);
  });

  test("endpoints without the service's tags, or of another stage, are not orphans, and their tags are asked once", async () => {
    const foreign = uniqueName('foreign');
    const otherStage = uniqueName('prodstage');
    await behindTheBack(foreign, { team: 'data-science' });
    await behindTheBack(otherStage, ours(randomUUID(), 'prod'));
    const first = await reconcile();
    expect(first.orphansFound).not.toContain(foreign);
    expect(first.orphansFound).not.toContain(otherStage);
    const second = await reconcile();
    expect(second.platformCalls.ListTags ?? 0).toBe(0);
    const names = (await orphans()).orphans.map((o: { endpoint_name: string }) => o.endpoint_name);
    expect(names).not.toContain(foreign);
    expect(names).not.toContain(otherStage);
  });

  test('adopt: the orphan becomes a tracked resource under the id its tags name, with the guardrails given, audited', async () => {
    const name = uniqueName('adopt');
    const resourceId = randomUUID();
    await behindTheBack(name, ours(resourceId));
    await reconcile();
    const res = await adopt(name, { idleTimeoutMinutes: 30, monthlyBudgetUsd: 40 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      id: resourceId,
      resource: { id: resourceId, name, type: 'dedicated', status: 'InService', instance_count: 2 },
    });
    expect((await orphans()).orphans.map((o: { endpoint_name: string }) => o.endpoint_name)).not.toContain(name);
    const st = await call(h.status, { token: user, pathParameters: { resourceId } });
    expect(st.body.guardrails).toMatchObject({ idle_timeout_minutes: 30, monthly_budget_usd: 40, billing: true });
    expect(st.body.costs.hourly_cost).toBeCloseTo(2 * 1.515, 6);
    expect((await auditOf(name)).find((e) => e.action === 'orphan.adopt')).toMatchObject({ outcome: 'success', status: 200 });
    // Tracked now: the next pass does not find it again.
    expect((await reconcile()).orphansFound).not.toContain(name);
    expect((await adopt(name)).status).toBe(404);
  });

  test('delete: needs confirm=true, then deletes the endpoint with its configuration and model on the platform, audited', async () => {
    const name = uniqueName('delete');
    const created = await behindTheBack(name, ours());
    await reconcile();
    expect((await remove(name, {})).status).toBe(400);
    const res = await remove(name);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, endpointName: name, status: 'deleting' });
    expect((await platformEndpoints()).map((e) => e.name)).not.toContain(name);
    expect(emulator.state.endpointConfigs.has(created.EndpointConfigName)).toBe(false);
    expect(emulator.state.models.has(created.ModelName)).toBe(false);
    expect((await orphans()).orphans.map((o: { endpoint_name: string }) => o.endpoint_name)).not.toContain(name);
    expect((await auditOf(name)).find((e) => e.action === 'orphan.delete')).toMatchObject({ outcome: 'success' });
  });

  test('an orphan that left the platform is dropped by the next pass; one that lost its tags is neither adopted nor deleted', async () => {
    const gone = uniqueName('gone');
    const retagged = uniqueName('retag');
    await behindTheBack(gone, ours());
    await behindTheBack(retagged, ours());
    await reconcile();
    emulator.state.endpoints.delete(gone);
    const arn = `arn:aws:sagemaker:us-east-1:123456789012:endpoint/${retagged}`;
    emulator.state.tags.set(arn, [{ Key: 'team', Value: 'someone-else' }]);
    expect((await reconcile()).orphansDropped).toContain(gone);
    const refused = await adopt(retagged);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(`Endpoint "${retagged}" no longer carries this service's tags: it is not this service's to adopt or delete`);
    expect((await remove(retagged)).status).toBe(409);
    expect((await platformEndpoints()).map((e) => e.name)).toContain(retagged);
  });

  test('only admins see and act on orphans', async () => {
    expect((await call(h.orphans, { token: user })).status).toBe(403);
    expect((await call(h.adopt, { method: 'POST', token: user, pathParameters: { endpointName: 'x' }, body: {} })).status).toBe(403);
    expect((await call(h.remove, { method: 'DELETE', token: user, pathParameters: { endpointName: 'x' }, query: { confirm: 'true' } })).status).toBe(
      403,
    );
  });
});

describe('crash safety of the dedicated deploy', () => {
  test('a deploy repeated with its clientToken after its answer was lost returns the same resource and creates no second endpoint', async () => {
    const name = uniqueName('repeat');
    const clientToken = randomUUID();
    const first = await deploy(name, { clientToken });
    const again = await deploy(name, { clientToken });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, repeated: true, endpointName: name, status: 'InService' });
    expect([...emulator.state.models.keys()].filter((m) => m.startsWith(`${name}-`))).toHaveLength(1);
    expect((await tracked()).filter((r) => r.name === name)).toHaveLength(1);
  });

  test('without the clientToken, with another configuration or by another admin, the same name stays a 409', async () => {
    const name = uniqueName('differs');
    const clientToken = randomUUID();
    await deploy(name, { clientToken });
    expect((await deploy(name)).status).toBe(409);
    expect((await deploy(name, { clientToken, instanceCount: 2 })).status).toBe(409);
    const { makeUser } = await import('../helpers/users');
    expect((await deploy(name, { clientToken }, (await makeUser('admin')).token)).status).toBe(409);
    expect([...emulator.state.models.keys()].filter((m) => m.startsWith(`${name}-`))).toHaveLength(1);
  });

  test('a deploy whose CreateEndpoint answer was lost still succeeds: the endpoint on its fresh configuration is its own', async () => {
    const name = uniqueName('lostanswer');
    await fault({ target: 'CreateEndpoint', model: name, fault: 'lost', count: 1 });
    const res = await deploy(name);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Creating');
    expect((await call(h.status, { token: user, pathParameters: { resourceId: res.body.id } })).body.resource.status).toBe('InService');
    expect([...emulator.state.endpointConfigs.keys()].filter((c) => c.startsWith(`${name}-`))).toHaveLength(1);
  });

  test('a crash between the platform call and the table write leaves an orphan that the next pass finds, and the repeated deploy takes it over', async () => {
    const name = uniqueName('crash');
    // CreateEndpoint is carried out but its answer never comes; describing it fails too, so the deploy
    // cannot tell that it exists and releases its reservation: the record of that attempt is gone.
    await fault({ target: 'CreateEndpoint', model: name, fault: 'lost', count: 1 });
    await fault({ target: 'DescribeEndpoint', model: name, fault: '500', after: 1, count: 10 });
    const failed = await deploy(name);
    expect(failed.status).toBe(500);
    await emulatorControl('DELETE', '/faults');
    expect((await tracked()).filter((r) => r.name === name)).toHaveLength(0);
    expect((await platformEndpoints()).map((e) => e.name)).toContain(name);

    const pass = await reconcile();
    expect(pass.orphansFound).toContain(name);
    const creates = emulator.state.calls.CreateEndpoint;

    const repeated = await deploy(name);
    expect(repeated.status).toBe(200);
    expect(repeated.body.message).toContain('already existed from an earlier attempt of this deploy');
    expect(emulator.state.calls.CreateEndpoint).toBe(creates);
    expect((await orphans()).orphans.map((o: { endpoint_name: string }) => o.endpoint_name)).not.toContain(name);
    const tags = (await platformEndpoints()).find((e) => e.name === name)?.tags;
    expect(tags).toMatchObject({ 'model-ops:resource-id': repeated.body.id, 'model-ops:stage': STAGE });
    expect((await call(h.status, { token: user, pathParameters: { resourceId: repeated.body.id } })).body.resource.status).toBe('InService');
  });

  test('a deploy whose Lambda died right after CreateEndpoint is completed by the next pass, not reported as an orphan', async () => {
    const { newResource } = await import('../../lib/deploy/common');
    const { registerResource } = await import('../../lib/deploy/register');
    const { dedicatedEndpoints: dedicated } = await import('../../lib/platforms/dedicated/endpoints');
    const name = uniqueName('died');
    // The deploy's first two steps, then nothing: the reservation is never marked started.
    const resource = newResource(
      {
        name,
        type: 'dedicated',
        status: 'Creating',
        health: 'unknown',
        endpoint_url: dedicated.endpointUrl(name),
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        instance_count: 1,
        model_name: 'llm-support-bot v1',
        model_id: PACKAGE,
        endpoint_name: name,
        deploy_state: 'reserved',
      },
      { id: adminId } as never,
      new Date(),
    );
    await registerResource(resource);
    await dedicated.deploy({
      resourceId: resource.id,
      endpointName: name,
      instanceType: 'ml.g5.xlarge',
      instanceCount: 1,
      executionRoleArn: 'arn:aws:iam::123456789012:role/r',
      subnetIds: ['subnet-1'],
      securityGroupIds: ['sg-1'],
      modelPackageArn: PACKAGE,
    });
    const pass = await reconcile();
    expect(pass.orphansFound).not.toContain(name);
    const after = (await tracked()).find((r) => r.id === resource.id);
    expect(after).toMatchObject({ status: 'InService' });
    const st = await call(h.status, { token: user, pathParameters: { resourceId: resource.id } });
    expect(st.body.guardrails.billing).toBe(true);
  });
});
