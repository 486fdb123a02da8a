import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ContractViolation, OPENAPI_PATH, validateResponse } from './contract';
import { http, loginAsAdmin, type HttpResult } from './http';

/**
 * The documented workflow over HTTP (serverless-offline), step by step. Every response is checked
 * against docs/openapi.yaml by http() itself; the assertions here pin the workflow's facts. The
 * emulator's lifecycle delay is 0, so a dedicated endpoint is InService at the first status read
 * after a change.
 */
jest.setTimeout(300_000);

const MANAGED_MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const HOSTED_MODEL = 'meta/llama-3.1-8b-instruct';
const tag = randomUUID().slice(0, 8);

let admin: string;
const state: { managedId?: string; dedicatedId?: string; conversationId?: string; threadId?: string } = {};

function expectStatus(res: HttpResult, status: number): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.raw.slice(0, 1000)}`);
}

/** GETs `path` until `done` holds or the attempts run out (250 ms apart), and returns the last answer. */
async function pollGet(path: string, done: (res: HttpResult) => boolean, attempts = 40): Promise<HttpResult> {
  let res = await http('GET', path, { token: admin });
  for (let i = 0; i < attempts && !done(res); i++) {
    await new Promise((r) => setTimeout(r, 250));
    res = await http('GET', path, { token: admin });
  }
  return res;
}

/** Polls the status endpoint (30 s in the documented workflow; no wait here) until `done` or 404. */
const pollStatus = (id: string, done: (res: HttpResult) => boolean, attempts = 40) => pollGet(`/api/resources/${id}/status`, done, attempts);

describe('the documented workflow, every response checked against the OpenAPI document', () => {
  beforeAll(async () => {
    admin = await loginAsAdmin();
  });

  test('login and validate', async () => {
    const res = await http('GET', '/api/auth/validate', { token: admin });
    expectStatus(res, 200);
    expect(res.body.user.role).toBe('super_admin');
  });

  test('list the models of the three platforms', async () => {
    for (const platform of ['managed', 'dedicated', 'hosted']) {
      const res = await http('GET', `/api/models/${platform}`, { token: admin });
      expectStatus(res, 200);
      expect(res.body.models.length).toBeGreaterThan(0);
    }
    const account = await http('GET', '/api/models/dedicated?source=account&max=50', { token: admin });
    expectStatus(account, 200);
    expect(account.body.source).toBe('account');
  });

  test('model info of a managed and of a hosted model', async () => {
    const managed = await http('GET', `/api/managed/model-info/${MANAGED_MODEL}`, { token: admin });
    expectStatus(managed, 200);
    expect(managed.body.modelInfo.modelId).toBe(MANAGED_MODEL);
    const hosted = await http('GET', `/api/hosted/model-info/${HOSTED_MODEL}`, { token: admin });
    expectStatus(hosted, 200);
    expect(hosted.body.modelInfo.modelId).toBe(HOSTED_MODEL);
  });

  test('deploy a managed model: dry run, then for real', async () => {
    const endpointName = `contract-managed-${tag}`;
    const plan = await http('POST', '/api/deploy/managed', { token: admin, body: { modelId: MANAGED_MODEL, endpointName } });
    expectStatus(plan, 200);
    expect(plan.body.dryRun).toBe(true);
    const real = await http('POST', '/api/deploy/managed', { token: admin, body: { modelId: MANAGED_MODEL, endpointName, dryRun: false } });
    expectStatus(real, 200);
    state.managedId = real.body.id;
    const again = await http('POST', '/api/deploy/managed', { token: admin, body: { modelId: MANAGED_MODEL, endpointName, dryRun: false } });
    expectStatus(again, 409);
  });

  test('deploy a hosted model: connectivity check as a dry run', async () => {
    const res = await http('POST', '/api/deploy/hosted', {
      token: admin,
      body: { modelId: HOSTED_MODEL, endpointName: `contract-hosted-${tag}`, dryRun: true },
    });
    expectStatus(res, 200);
    expect(res.body.provider).toBe('hosted');
  });

  test('deploy an account model package on the dedicated platform: dry run, real, then poll until InService', async () => {
    const [models, pricing] = await Promise.all([
      http('GET', '/api/models/dedicated?source=account&max=50', { token: admin }),
      http('GET', '/api/pricing', { token: admin }),
    ]);
    expectStatus(models, 200);
    expectStatus(pricing, 200);
    const priced = new Set<string>(pricing.body.pricing.dedicated.map((p: { instanceType: string }) => p.instanceType));
    const model = (
      models.body.models as { modelPackageArn: string; modelApprovalStatus: string; supportedRealtimeInferenceInstanceTypes: string[] }[]
    ).find((m) => m.modelApprovalStatus === 'Approved' && m.supportedRealtimeInferenceInstanceTypes.some((t) => priced.has(t)));
    if (!model) throw new Error(`no approved account model package with a priced instance type: ${models.raw.slice(0, 500)}`);
    const instanceType = model.supportedRealtimeInferenceInstanceTypes.find((t) => priced.has(t)) as string;
    const endpointName = `contract-dedicated-${tag}`;
    const body = { endpointName, instanceType, modelPackageArn: model.modelPackageArn };

    const plan = await http('POST', '/api/deploy/dedicated', { token: admin, body: { ...body, dryRun: true } });
    expectStatus(plan, 200);
    expect(plan.body.plan.model.modelPackageArn).toBe(model.modelPackageArn);

    const real = await http('POST', '/api/deploy/dedicated', { token: admin, body: { ...body, dryRun: false } });
    expectStatus(real, 200);
    expect(real.body.status).toBe('Creating');
    state.dedicatedId = real.body.id;

    const status = await pollStatus(real.body.id, (r) => r.body?.resource?.status === 'InService');
    expectStatus(status, 200);
    expect(status.body.resource).toMatchObject({ type: 'dedicated', status: 'InService', health: 'healthy' });
    expect(status.body.costs.pricing_model).toBe('hourly');

    const listed = await http('GET', '/api/resources?type=dedicated&limit=100', { token: admin });
    expectStatus(listed, 200);
    expect(listed.body.resources.map((r: { id: string }) => r.id)).toContain(real.body.id);
  });

  test('create a conversation, chat in a thread, read the thread', async () => {
    const managed = await http('GET', `/api/resources/${state.managedId}/status`, { token: admin });
    expectStatus(managed, 200);
    expect(managed.body.costs.pricing_model).toBe('token');
    const created = await http('POST', '/api/conversations', {
      token: admin,
      body: {
        title: 'Contract walkthrough',
        use_case: 'Checks the documented workflow against the OpenAPI document',
        deployed_resource: {
          resource_name: managed.body.resource.name,
          resource_type: 'managed',
          cloud_resource_id: MANAGED_MODEL,
          region: managed.body.resource.region,
          estimated_hourly_cost: 0,
        },
      },
    });
    expectStatus(created, 200);
    state.conversationId = created.body.conversation_id;

    const first = await http('POST', '/api/chat/thread', {
      token: admin,
      body: { message: 'Hello! Say something short.', conversationId: state.conversationId, resourceId: state.managedId },
    });
    expectStatus(first, 200);
    state.threadId = first.body.threadId;
    expect(first.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);

    const second = await http('POST', '/api/chat/thread', {
      token: admin,
      body: { message: 'And once more.', conversationId: state.conversationId, resourceId: state.managedId, threadId: state.threadId },
    });
    expectStatus(second, 200);
    expect(second.body.threadId).toBe(state.threadId);

    const thread = await http('GET', `/api/chat/thread?threadId=${state.threadId}&conversationId=${state.conversationId}`, { token: admin });
    expectStatus(thread, 200);
    expect(thread.body.messages).toHaveLength(4);

    const missing = await http('POST', '/api/chat/thread', {
      token: admin,
      body: { conversationId: state.conversationId, resourceId: state.managedId },
    });
    expectStatus(missing, 400);
    expect(missing.body).toMatchObject({ success: false, threadId: '', messages: [] });
  });

  test('usage counts the turns', async () => {
    const res = await http('GET', `/api/usage/current?conversationId=${state.conversationId}`, { token: admin });
    expectStatus(res, 200);
    expect(res.body.mtd.requests).toBe(2);
    expect(res.body.last24h.tokens_total).toBe(res.body.last24h.tokens_in + res.body.last24h.tokens_out);
  });

  test('legacy chat and its messages, and the conversation-wide listing', async () => {
    const chat = await http('POST', '/api/chat', {
      token: admin,
      body: { message: 'Legacy hello', conversationId: state.conversationId, resourceId: state.managedId },
    });
    expectStatus(chat, 200);
    expect(chat.body.response).toEqual(expect.any(String));
    const legacy = await http('GET', `/api/chat/legacy?conversationId=${state.conversationId}`, { token: admin });
    expectStatus(legacy, 200);
    expect(legacy.body.count).toBe(2);
    // The conversation-wide listing reads the index the stream aggregator writes (within a poll or two).
    const all = await pollGet(`/api/conversations/${state.conversationId}/messages`, (r) => r.body?.messages?.length === 6);
    expectStatus(all, 200);
    expect(all.body.messages).toHaveLength(6);
    const mine = await http('GET', '/api/conversations', { token: admin });
    expectStatus(mine, 200);
  });

  test('restart the dedicated resource and poll until it is InService again', async () => {
    const restart = await http('POST', `/api/resources/${state.dedicatedId}/control`, { token: admin, body: { action: 'restart' } });
    expectStatus(restart, 200);
    expect(restart.body).toMatchObject({ action: 'restart', status: 'updating' });
    const status = await pollStatus(state.dedicatedId as string, (r) => r.body?.resource?.status === 'InService');
    expectStatus(status, 200);
  });

  test('delete: the dedicated resource until its status is 404, the managed one from tracking', async () => {
    const refused = await http('POST', `/api/resources/${state.dedicatedId}/control`, { token: admin, body: { action: 'delete' } });
    expectStatus(refused, 400);
    const deleting = await http('POST', `/api/resources/${state.dedicatedId}/control`, { token: admin, body: { action: 'delete', confirm: true } });
    expectStatus(deleting, 200);
    expect(deleting.body.status).toBe('deleting');
    const gone = await pollStatus(state.dedicatedId as string, (r) => r.status === 404);
    expectStatus(gone, 404);

    const managed = await http('POST', `/api/resources/${state.managedId}/control`, { token: admin, body: { action: 'delete', confirm: true } });
    expectStatus(managed, 200);
    const after = await http('GET', `/api/resources/${state.managedId}/status`, { token: admin });
    expectStatus(after, 404);
  });

  test('the remaining catalogue, deploy, usage and admin reads', async () => {
    // The spec's debug=1 is refused (400) since query values are converted strictly; true is accepted.
    const debug = await http('GET', '/api/models/hosted?debug=true', { token: admin });
    expectStatus(debug, 200);
    expect(debug.body.raw).toBeDefined();
    expectStatus(await http('GET', '/api/models/dedicated?search=llm&max=5', { token: admin }), 200);
    expectStatus(await http('GET', '/api/models/dedicated?max=51', { token: admin }), 400);
    const sync = await http('POST', '/api/admin/sync-models', { token: admin });
    expectStatus(sync, 200);
    expect(sync.body.errors).toEqual([]);

    const hosted = await http('POST', '/api/deploy/hosted', {
      token: admin,
      body: { modelId: HOSTED_MODEL, endpointName: `contract-hosted-${tag}` },
    });
    expectStatus(hosted, 200);
    const hostedStatus = await http('GET', `/api/resources/${hosted.body.id}/status`, { token: admin });
    expectStatus(hostedStatus, 200);
    expect(hostedStatus.body.resource.type).toBe('hosted');
    expectStatus(await http('POST', `/api/resources/${hosted.body.id}/control`, { token: admin, body: { action: 'restart' } }), 400);
    expectStatus(await http('POST', `/api/resources/${hosted.body.id}/control`, { token: admin, body: { action: 'delete', confirm: true } }), 200);

    expectStatus(await http('GET', '/api/usage/current', { token: admin }), 200);
    expectStatus(await http('GET', '/api/usage/current?scope=all', { token: admin }), 200);

    const users = await http('GET', '/api/admin/users?limit=5', { token: admin });
    expectStatus(users, 200);
    const me = users.body.users[0] as { id: string };
    expectStatus(await http('GET', `/api/admin/users/${me.id}`, { token: admin }), 200);
    expectStatus(await http('GET', `/api/admin/users/${randomUUID()}`, { token: admin }), 404);

    const price = await http('POST', '/api/pricing', {
      token: admin,
      body: { entries: [{ platform: 'managed', modelId: `contract.model-${tag}`, per_1k_input_tokens_usd: 0.001, per_1k_output_tokens_usd: 0.002 }] },
    });
    expectStatus(price, 200);
    expect(price.body.updated).toBe(1);
  });

  test('pricing, the audit log and credentials', async () => {
    expectStatus(await http('GET', '/api/pricing', { token: admin }), 200);
    const audit = await http('GET', '/api/admin/audit?limit=20', { token: admin });
    expectStatus(audit, 200);
    expect(audit.body.entries.length).toBeGreaterThan(0);
    expectStatus(await http('GET', '/api/auth/aws-credentials', { token: admin }), 200);
    expectStatus(await http('GET', '/api/auth/nvidia-credentials', { token: admin }), 200);
  });

  test('refusals carry the documented shapes: 401 without a token, 404 for an unknown resource', async () => {
    expectStatus(await http('GET', '/api/resources'), 401);
    expectStatus(await http('GET', `/api/resources/${randomUUID()}/status`, { token: admin }), 404);
    expectStatus(await http('DELETE', '/api/auth/login'), 404);
  });

  test('GET /api/openapi.json needs no token and serves docs/openapi.yaml', async () => {
    const res = await http('GET', '/api/openapi.json');
    expectStatus(res, 200);
    expect(res.body).toEqual(parse(readFileSync(OPENAPI_PATH, 'utf8')));
  });

  test('logout', async () => {
    expectStatus(await http('POST', '/api/auth/logout', { token: admin }), 200);
  });
});

describe('the contract validator', () => {
  const validStatus = {
    success: true,
    resource: {
      id: randomUUID(),
      name: 'r',
      type: 'managed',
      status: 'InService',
      health: 'healthy',
      endpoint_url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse',
      region: 'us-east-1',
      instance_type: null,
      instance_count: null,
      model_name: 'm',
      created_at: '2024-01-01T00:00:00.000Z',
      last_updated: '2024-01-01T00:00:00.000Z',
      lifecycle: 'access',
      billing: 'per_token',
      capabilities: {
        chat: true,
        embeddings: false,
        streaming: true,
        tools: true,
        json_output: true,
        image_input: false,
        prompt_caching: false,
        cache_ttls: [],
        service_tiers: ['default'],
        max_output_tokens: 4096,
      },
      actions: ['delete', 'update_access'],
    },
    metrics: { response_time_ms: 12 },
    costs: {
      hourly_cost: 0,
      daily_cost: 0,
      monthly_estimate: 0,
      last_updated: '2024-01-01T00:00:00.000Z',
      pricing_model: 'token',
      per_1k_input_tokens_usd: 0.00025,
      per_1k_output_tokens_usd: 0.00125,
    },
  };
  const path = `/api/resources/${randomUUID()}/status`;

  test('accepts a body that matches', () => {
    expect(() => validateResponse('GET', path, 200, validStatus)).not.toThrow();
  });

  test('fails on a drifted body: a required field missing, a field renamed, a wrong type', () => {
    const { endpoint_url: _dropped, ...withoutUrl } = validStatus.resource;
    expect(() => validateResponse('GET', path, 200, { ...validStatus, resource: withoutUrl })).toThrow(ContractViolation);
    expect(() => validateResponse('GET', path, 200, { ...validStatus, resource: withoutUrl })).toThrow(/endpoint_url/);
    expect(() => validateResponse('POST', '/api/auth/login', 401, { success: false, error: 'Invalid username or password' })).toThrow(/message/);
    expect(() => validateResponse('GET', path, 200, { ...validStatus, metrics: { response_time_ms: '12' } })).toThrow(ContractViolation);
  });

  test('fails on an undocumented status, and on an unknown route that does not answer 404', () => {
    expect(() => validateResponse('GET', path, 418, { success: false, error: 'teapot' })).toThrow(/does not list/);
    expect(() => validateResponse('GET', '/api/no/such/route', 200, { success: true })).toThrow(ContractViolation);
  });
});
