import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BedrockClient, CreateInferenceProfileCommand, DeleteInferenceProfileCommand } from '@aws-sdk/client-bedrock';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { call, type Handler } from '../helpers/invoke';
import type { reconcile as Reconcile } from '../../lib/reconcile/pass';

/**
 * Managed resources and their Bedrock inference profiles, as the reconciler and the call path see
 * them: a profile that vanished (a system profile AWS no longer lists, an application profile deleted
 * outside the service) marks the resource Failed with the reason and refuses its calls by name; an
 * application profile with this stage's tags that no resource records is an orphan, listed with its
 * tags and deletable. Against an emulator of this file's own: retiring a system profile there cannot
 * touch the other files' runs. "Outside the service" is the real Bedrock client, as a colleague's
 * script would be.
 */

jest.setTimeout(60_000);
const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const savedEnv = { ...process.env };
let emulator: RunningEmulator;
let bedrock: BedrockClient;
let reconcile: typeof Reconcile;
let h: Record<'deploy' | 'status' | 'chat' | 'orphans' | 'adopt' | 'removeOrphan' | 'audit' | 'control', Handler>;
let newConversation: (token: string, resource?: any) => Promise<string>;
let getTrackedResource: (id: string) => Promise<any>;
let admin: string;
let superAdmin: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, hostedApiKey: 'profiles-key' });
  Object.assign(process.env, {
    SERVICE_CLOUD_ENDPOINT: emulator.url,
    HOSTED_BASE_URL: `${emulator.url}/v1`,
    STAGE: 'local',
    RECONCILE_PLATFORM_CALLS_PER_SECOND: '100',
  });
  bedrock = new BedrockClient({
    endpoint: emulator.url,
    region: 'us-east-1',
    credentials: { accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID as string, secretAccessKey: 'outside-the-service' },
  });
  reconcile = (await import('../../lib/reconcile/pass')).reconcile;
  h = {
    deploy: (await import('../../functions/deploy/managed')).handler as Handler,
    status: (await import('../../functions/resources/status')).handler as Handler,
    chat: (await import('../../functions/chat/thread-post')).handler as Handler,
    orphans: (await import('../../functions/orphans/list')).handler as Handler,
    adopt: (await import('../../functions/orphans/adopt')).handler as Handler,
    removeOrphan: (await import('../../functions/orphans/delete')).handler as Handler,
    audit: (await import('../../functions/admin/list-audit')).handler as Handler,
    control: (await import('../../functions/resources/control')).handler as Handler,
  };
  newConversation = (await import('./chat-fixtures')).newConversation;
  getTrackedResource = (await import('../../tables/resources')).getTrackedResource;
  const { makeUser } = await import('../helpers/users');
  admin = (await makeUser('admin')).token;
  superAdmin = (await makeUser('super_admin')).token;
});

afterAll(async () => {
  process.env = savedEnv;
  bedrock?.destroy();
  await emulator?.close();
});

const tag = () => randomUUID().slice(0, 8);
const deploy = async (inferenceProfile: string) => {
  const res = await call(h.deploy, {
    method: 'POST',
    token: admin,
    body: { modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile, dryRun: false },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; endpointName: string; inferenceProfile: { id: string; arn: string } };
};
const status = async (id: string) => (await call(h.status, { token: admin, pathParameters: { resourceId: id } })).body;
async function chat(resourceId: string) {
  const conversationId = await newConversation(admin, await getTrackedResource(resourceId));
  return call(h.chat, { method: 'POST', path: '/api/chat/thread', token: admin, body: { message: 'Hello there.', conversationId, resourceId } });
}
const auditOf = async (target: string) =>
  ((await call(h.audit, { token: superAdmin, query: { limit: '100' } })).body.entries as any[]).filter((e) => e.target === target);
const emulatorControl = (method: string, path: string) => fetch(`${emulator.url}/_emulator${path}`, { method }).then((r) => r.json());
const ours = (resourceId: string) => [
  { key: 'managed-by', value: 'model-ops' },
  { key: 'model-ops:stage', value: 'local' },
  { key: 'model-ops:resource-id', value: resourceId },
  { key: 'team', value: 'search' },
];
const orphanList = async () => (await call(h.orphans, { token: admin, query: { limit: '100' } })).body.orphans as any[];
/** Profiles younger than a deploy's run are left alone; the pass is run as if three minutes had gone by. */
const later = () => new Date(Date.now() + 3 * 60_000);

describe('a managed resource whose inference profile vanished', () => {
  test('an application profile deleted outside the service: the pass marks the resource Failed with the reason, audited once, and its calls name the profile', async () => {
    const deployed = await deploy('application');
    await bedrock.send(new DeleteInferenceProfileCommand({ inferenceProfileIdentifier: deployed.inferenceProfile.arn }));

    const pass = await reconcile();
    expect(pass.profilesMissing).toEqual([deployed.id]);
    expect((await reconcile()).profilesMissing).toEqual([]);

    const read = await status(deployed.id);
    expect(read.resource).toMatchObject({ status: 'Failed', health: 'unhealthy' });
    expect(read.failure_reason).toContain(`Application inference profile ${deployed.inferenceProfile.arn} no longer exists on Bedrock`);
    const entries = (await auditOf(deployed.id)).filter((e) => e.action === 'resource.failed');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: { username: 'reconciler', role: 'system' } });

    const turn = await chat(deployed.id);
    expect(turn.status).toBe(404);
    expect(turn.body.error).toContain(`its inference profile '${deployed.inferenceProfile.id}' no longer exists on Bedrock`);
  });

  test('a call Bedrock refuses because the profile is gone is answered by name before any pass; the next pass marks the resource', async () => {
    const deployed = await deploy('application');
    await bedrock.send(new DeleteInferenceProfileCommand({ inferenceProfileIdentifier: deployed.inferenceProfile.arn }));

    const turn = await chat(deployed.id);
    expect(turn.status).toBe(404);
    expect(turn.body.error).toContain(`its inference profile '${deployed.inferenceProfile.id}' no longer exists on Bedrock`);
    expect((await reconcile()).profilesMissing).toEqual([deployed.id]);
    expect((await getTrackedResource(deployed.id))?.status).toBe('Failed');
  });

  test('a system profile AWS stops listing fails the resource; listed again, the next pass brings it back InService', async () => {
    const deployed = await deploy(`global.${SONNET}`);
    await emulatorControl('POST', `/retired-profiles/${encodeURIComponent(`global.${SONNET}`)}`);
    try {
      expect((await reconcile()).profilesMissing).toEqual([deployed.id]);
      expect((await status(deployed.id)).failure_reason).toContain(`Inference profile "global.${SONNET}" is no longer offered by Bedrock`);
    } finally {
      await emulatorControl('DELETE', `/retired-profiles/${encodeURIComponent(`global.${SONNET}`)}`);
    }
    expect((await reconcile()).profilesBack).toEqual([deployed.id]);
    const read = await status(deployed.id);
    expect(read.resource).toMatchObject({ status: 'InService', health: 'healthy' });
    expect(read.failure_reason).toBeUndefined();
    expect((await chat(deployed.id)).status).toBe(200);
    expect((await auditOf(deployed.id)).map((e) => e.action)).toEqual(expect.arrayContaining(['resource.failed', 'resource.recovered']));
  });
});

describe('application inference profiles left behind', () => {
  test('a profile with this stage’s tags that no resource records is listed with its tags, audited once, cannot be adopted, and is deleted', async () => {
    const tracked = await deploy('application');
    const resourceId = randomUUID();
    const created = await bedrock.send(
      new CreateInferenceProfileCommand({
        inferenceProfileName: `model-ops-${resourceId.replaceAll('-', '')}`,
        modelSource: { copyFrom: `arn:aws:bedrock:us-east-1::foundation-model/${SONNET}` },
        tags: ours(resourceId),
      }),
    );
    const foreign = await bedrock.send(
      new CreateInferenceProfileCommand({
        inferenceProfileName: `analytics-${tag()}`,
        modelSource: { copyFrom: `arn:aws:bedrock:us-east-1::foundation-model/${SONNET}` },
        tags: [{ key: 'team', value: 'analytics' }],
      }),
    );
    const name = `model-ops-${resourceId.replaceAll('-', '')}`;

    expect((await reconcile()).orphansFound).not.toContain(name);
    const first = await reconcile({ now: later() });
    expect(first.orphansFound).toEqual([name]);
    expect((await reconcile({ now: later() })).orphansFound).toEqual([]);

    const listed = await orphanList();
    expect(listed.map((o) => o.endpoint_arn)).not.toContain(tracked.inferenceProfile.arn);
    expect(listed.map((o) => o.endpoint_arn)).not.toContain(foreign.inferenceProfileArn);
    expect(listed.find((o) => o.endpoint_name === name)).toMatchObject({
      kind: 'inference_profile',
      endpoint_arn: created.inferenceProfileArn,
      resource_id: resourceId,
      hourly_cost_usd: 0,
      tags: { 'managed-by': 'model-ops', 'model-ops:stage': 'local', 'model-ops:resource-id': resourceId, team: 'search' },
    });
    const found = (await auditOf(name)).filter((e) => e.action === 'orphan.found');
    expect(found).toHaveLength(1);
    expect(found[0].reason).toContain(created.inferenceProfileArn);

    const adopted = await call(h.adopt, { method: 'POST', token: admin, pathParameters: { endpointName: name }, body: {} });
    expect(adopted.status).toBe(400);
    expect(adopted.body.error).toContain('cannot be adopted');

    const removed = await call(h.removeOrphan, {
      method: 'DELETE',
      token: admin,
      pathParameters: { endpointName: name },
      query: { confirm: 'true' },
    });
    expect(removed.status).toBe(200);
    const state = (await emulatorControl('GET', '/state')) as { inferenceProfiles: { arn: string }[] };
    expect(state.inferenceProfiles.map((p) => p.arn)).not.toContain(created.inferenceProfileArn);
    expect(state.inferenceProfiles.map((p) => p.arn)).toContain(tracked.inferenceProfile.arn);
    expect((await orphanList()).map((o) => o.endpoint_name)).not.toContain(name);
    expect((await auditOf(name)).map((e) => e.action)).toContain('orphan.delete');
  });
});
