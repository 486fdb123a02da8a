/**
 * The model endpoints (spec 4.2, 4.8) called in-process against DynamoDB Local and the shared
 * emulator: response shapes field by field, query validation, 404s, roles, and the catalogue cache.
 */
import { jest } from '@jest/globals';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { handler as listDedicated } from '../../functions/models/list-dedicated';
import { handler as listHosted } from '../../functions/models/list-hosted';
import { handler as listManaged } from '../../functions/models/list-managed';
import { handler as hostedInfo } from '../../functions/models/hosted-model-info';
import { handler as managedInfo } from '../../functions/models/managed-model-info';
import { handler as syncModels } from '../../functions/models/sync-models';
import { db } from '../../tables/client';
import { WHOLE_CATALOGUE, getCatalogue, listCachedVariants, putCatalogue } from '../../tables/catalogue';
import { modelTotalsWrite } from '../../tables/usage';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

jest.setTimeout(60_000);

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const LLAMA = 'meta/llama-3.1-8b-instruct';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let userToken: string;
let adminToken: string;
beforeAll(async () => {
  userToken = (await makeUser('user')).token;
  adminToken = (await makeUser('admin')).token;
});

// `null` sends no token at all.
const get = (handler: unknown, path: string, query?: Record<string, string>, token: string | null = userToken) =>
  call(handler as Handler, { path, query, token: token ?? undefined });
const info = (handler: unknown, path: string, modelId: string, token: string | null = userToken) =>
  call(handler as Handler, { path, pathParameters: { modelId }, token: token ?? undefined });

const expectStandardError = (body: any, status: number) => {
  expect(body.success).toBe(false);
  expect(typeof body.error).toBe('string');
  expect(Object.keys(body).every((k) => ['success', 'error', 'details'].includes(k))).toBe(true);
  return status;
};

describe('GET /api/models/managed', () => {
  test('answers success, region and the managed list entries: the spec fields, the lifecycle and the ways to invoke', async () => {
    const res = await get(listManaged, '/api/models/managed');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['models', 'region', 'success']);
    expect(res.body).toMatchObject({ success: true, region: 'us-east-1' });
    expect(res.body.models).toHaveLength(14);
    for (const m of res.body.models) {
      expect(Object.keys(m).sort()).toEqual([
        'customization',
        'inferenceTypesSupported',
        'inputModalities',
        'invocation',
        'modelArn',
        'modelId',
        'modelLifecycle',
        'outputModalities',
        'providerName',
      ]);
      expect(typeof m.modelId).toBe('string');
      expect(typeof m.providerName).toBe('string');
      expect(m.modelArn).toMatch(/^arn:aws:bedrock:us-east-1::foundation-model\//);
      for (const list of [m.inputModalities, m.outputModalities, m.inferenceTypesSupported, m.customization]) {
        expect(Array.isArray(list) && list.every((v: unknown) => typeof v === 'string')).toBe(true);
      }
    }
    expect(res.body.models.find((m: any) => m.modelId === HAIKU)).toEqual({
      modelId: HAIKU,
      providerName: 'Anthropic',
      modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${HAIKU}`,
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['TEXT'],
      inferenceTypesSupported: ['ON_DEMAND'],
      customization: [],
      modelLifecycle: { status: 'LEGACY', endOfLifeTime: '2026-09-10T00:00:00.000Z' },
      invocation: {
        onDemand: HAIKU,
        profiles: [
          { id: `us.${HAIKU}`, arn: expect.stringContaining(`:inference-profile/us.${HAIKU}`), scope: 'geographic', regions: expect.any(Array) },
        ],
        applicationProfile: true,
      },
    });
  });

  test("a profile-only model shows no on-demand id, its Region's geographic profile before the global one with their Regions, and that an application profile can copy them", async () => {
    const res = await get(listManaged, '/api/models/managed');
    const sonnet = res.body.models.find((m: any) => m.modelId === SONNET);
    expect(sonnet.modelLifecycle).toEqual({ status: 'ACTIVE' });
    expect(sonnet.invocation.onDemand).toBeNull();
    expect(sonnet.invocation.applicationProfile).toBe(true);
    const ids = sonnet.invocation.profiles.map((p: any) => p.id);
    // Only the profiles a caller in the service's Region (us-east-1) can use: eu. and apac. start elsewhere.
    expect(ids).toEqual([`us.${SONNET}`, `global.${SONNET}`]);
    expect(sonnet.invocation.profiles.find((p: any) => p.id === `us.${SONNET}`)).toMatchObject({
      scope: 'geographic',
      regions: ['us-east-1', 'us-east-2', 'us-west-2'],
    });
    expect(sonnet.invocation.profiles.at(-1).scope).toBe('global');
    // An embedding model offered on demand only has no profiles, and still takes an application profile.
    const titan = res.body.models.find((m: any) => m.modelId === 'amazon.titan-embed-text-v2:0');
    expect(titan.invocation).toEqual({ onDemand: 'amazon.titan-embed-text-v2:0', profiles: [], applicationProfile: true });
  });

  test('needs a token', async () => {
    const res = await get(listManaged, '/api/models/managed', undefined, null);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Authentication required', details: 'No token provided' });
  });

  test('an unknown query parameter is 400 naming it', async () => {
    const res = await get(listManaged, '/api/models/managed', { region: 'eu-west-1' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Unknown field 'region'");
  });

  test('the catalogue is cached in the table for the configured TTL and the next listing is served from it', async () => {
    await get(listManaged, '/api/models/managed');
    const cached = await getCatalogue('managed', WHOLE_CATALOGUE);
    expect(cached?.entries).toHaveLength(14);
    expect(cached?.complete).toBe(true);
    expect(cached?.fetchedAt).toMatch(ISO);
    const expectedExpiry = Math.floor(Date.now() / 1000) + 3600;
    expect(cached?.expiresAt).toBeGreaterThan(expectedExpiry - 120);
    expect(cached?.expiresAt).toBeLessThanOrEqual(expectedExpiry);
    const res = await get(listManaged, '/api/models/managed');
    expect(res.headers['X-Catalogue-Source']).toBe('cache');
    expect(res.body.models).toHaveLength(14);
  });

  test('an expired copy is not served while the platform answers', async () => {
    const cached = await getCatalogue('managed', WHOLE_CATALOGUE);
    await putCatalogue({ ...(cached as NonNullable<typeof cached>), entries: [], expiresAt: Math.floor(Date.now() / 1000) - 1 });
    const res = await get(listManaged, '/api/models/managed');
    expect(res.headers['X-Catalogue-Source']).toBe('live');
    expect(res.body.models).toHaveLength(14);
  });
});

describe('GET /api/models/dedicated', () => {
  const list = (query?: Record<string, string>) => get(listDedicated, '/api/models/dedicated', query);

  test('answers success, region, the source and dedicated list entries, exactly the spec fields', async () => {
    const res = await list({ source: 'all' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['models', 'region', 'source', 'success']);
    expect(res.body).toMatchObject({ success: true, region: 'us-east-1', source: 'all' });
    expect(res.body.models).toHaveLength(12);
    for (const m of res.body.models) {
      expect(Object.keys(m).sort()).toEqual([
        'creationTime',
        'displayName',
        'inferenceContainers',
        'modelApprovalStatus',
        'modelPackageArn',
        'supportedContentTypes',
        'supportedRealtimeInferenceInstanceTypes',
        'supportedResponseMIMETypes',
        'supportedTransformInstanceTypes',
      ]);
      expect(m.modelPackageArn).toMatch(/^arn:aws:sagemaker:us-east-1:/);
      expect(m.creationTime).toMatch(ISO);
      expect(typeof m.displayName).toBe('string');
      expect(typeof m.modelApprovalStatus).toBe('string');
      for (const c of m.inferenceContainers) {
        expect(Object.keys(c).sort()).toEqual(['framework', 'frameworkVersion', 'image', 'modelDataUrl']);
        expect(Object.values(c).every((v) => typeof v === 'string')).toBe(true);
      }
      for (const key of [
        'supportedContentTypes',
        'supportedResponseMIMETypes',
        'supportedRealtimeInferenceInstanceTypes',
        'supportedTransformInstanceTypes',
      ]) {
        expect(m[key].every((v: unknown) => typeof v === 'string')).toBe(true);
      }
    }
    // Newest first across both sources.
    const times = res.body.models.map((m: any) => m.creationTime);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test('without parameters it lists the public catalog, at most 20', async () => {
    const res = await list();
    expect(res.body.source).toBe('public');
    expect(res.body.models.map((m: any) => m.displayName)).toEqual([
      'Meta Llama 3.2 11B Vision Instruct',
      'Mistral 7B Instruct',
      'Phi-3 Mini 4K Instruct',
      'Meta Llama 3 70B Instruct',
      'Meta Llama 3 8B Instruct',
      'BGE Large EN v1.5',
      'Gemma 2B Instruct',
      'Falcon 7B Instruct BF16',
    ]);
  });

  test('source=account lists the account model packages', async () => {
    const res = await list({ source: 'account' });
    expect(res.body.source).toBe('account');
    expect(res.body.models.map((m: any) => m.displayName)).toEqual([
      'llm-support-bot v2',
      'llm-support-bot v1',
      'fraud-detector-xgboost v3',
      'legacy-sentiment-classifier',
    ]);
  });

  test('max caps the number of models', async () => {
    expect((await list({ source: 'all', max: '3' })).body.models).toHaveLength(3);
    expect((await list({ source: 'all', max: '50' })).body.models).toHaveLength(12);
  });

  test('search filters by name without regard to case, on model names and display names', async () => {
    expect((await list({ search: 'llama' })).body.models.map((m: any) => m.displayName)).toEqual([
      'Meta Llama 3.2 11B Vision Instruct',
      'Meta Llama 3 70B Instruct',
      'Meta Llama 3 8B Instruct',
    ]);
    expect((await list({ search: 'MISTRAL 7B' })).body.models.map((m: any) => m.displayName)).toEqual(['Mistral 7B Instruct']);
    expect((await list({ source: 'all', search: 'support' })).body.models).toHaveLength(2);
    expect((await list({ search: 'nothing-like-this' })).body.models).toEqual([]);
  });

  test.each([
    [{ max: '0' }, 'max'],
    [{ max: '51' }, 'max'],
    [{ max: '-1' }, 'max'],
    [{ max: 'ten' }, 'max'],
    [{ max: '2.5' }, 'max'],
    [{ max: 'true' }, 'max'],
    [{ max: '1e1' }, 'max'],
    [{ source: 'private' }, 'source'],
    [{ source: 'PUBLIC' }, 'source'],
    [{ source: '' }, 'source'],
    [{ search: 'x'.repeat(101) }, 'search'],
  ])('invalid query %j is 400 naming %s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(expectStandardError(res.body, 400));
    expect(res.body.error).toContain(`'${field}'`);
  });

  test('an unknown query parameter is 400 naming it', async () => {
    const res = await list({ sort: 'name' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Unknown field 'sort'");
  });
});

describe('GET /api/models/hosted', () => {
  test('answers success, provider hosted and the hosted list entries, exactly the spec fields', async () => {
    const res = await get(listHosted, '/api/models/hosted');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['models', 'provider', 'success']);
    expect(res.body).toMatchObject({ success: true, provider: 'hosted' });
    expect(res.body.models).toHaveLength(8);
    for (const m of res.body.models) {
      expect(Object.keys(m).sort()).toEqual(['id', 'name', 'provider', 'tags', 'task']);
      expect(m.provider).toBe('hosted');
      expect(['chat', 'embedding']).toContain(m.task);
      expect(m.tags.every((t: unknown) => typeof t === 'string')).toBe(true);
    }
    expect(res.body.models.find((m: any) => m.id === LLAMA)).toEqual({
      id: LLAMA,
      name: 'Llama 3.1 8B Instruct',
      provider: 'hosted',
      tags: ['llama', 'chat'],
      task: 'chat',
    });
  });

  test.each(['1', 'true'])('debug=%s adds the raw upstream answer as raw', async (debug) => {
    const res = await get(listHosted, '/api/models/hosted', { debug });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['models', 'provider', 'raw', 'success']);
    expect(res.body.raw.object).toBe('list');
    expect(res.body.raw.data.map((m: any) => m.id)).toEqual(res.body.models.map((m: any) => m.id));
    expect(res.headers['X-Catalogue-Source']).toBe('live');
  });

  test('debug=0 answers without raw', async () => {
    const res = await get(listHosted, '/api/models/hosted', { debug: '0' });
    expect(res.body).not.toHaveProperty('raw');
  });

  test.each(['yes', '2', ''])('debug=%j is 400 naming debug', async (debug) => {
    const res = await get(listHosted, '/api/models/hosted', { debug });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("'debug'");
  });
});

describe('GET /api/managed/model-info/{modelId}', () => {
  test('answers modelInfo, systemPrompt and usage, exactly the spec fields', async () => {
    const res = await info(managedInfo, `/api/managed/model-info/${HAIKU}`, HAIKU);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['modelInfo', 'success', 'systemPrompt', 'usage']);
    expect(res.body.success).toBe(true);
    expect(res.body.modelInfo).toEqual({
      modelId: HAIKU,
      modelName: 'Claude 3 Haiku',
      providerName: 'Anthropic',
      modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${HAIKU}`,
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['TEXT'],
      responseStreamingSupported: true,
      customizationsSupported: [],
      inferenceTypesSupported: ['ON_DEMAND'],
      modelLifecycle: { status: 'LEGACY', endOfLifeTime: '2026-09-10T00:00:00.000Z' },
      pricing: { inputTokens: '$0.00025 per 1K input tokens', outputTokens: '$0.00125 per 1K output tokens' },
    });
    expect(res.body.systemPrompt).toMatch(/^[A-Z].{20,}/);
    expect(res.body.usage).toEqual({ totalInvocations: 0, totalInputTokens: 0, totalOutputTokens: 0, estimatedCost: 0 });
  });

  test('a model that can be fine-tuned lists FINE_TUNING', async () => {
    const res = await info(managedInfo, '/api/managed/model-info/amazon.titan-text-express-v1', 'amazon.titan-text-express-v1');
    expect(res.body.modelInfo.customizationsSupported).toContain('FINE_TUNING');
  });

  test('usage are the counters every chat turn with the model adds to', async () => {
    const model = 'cohere.command-r-v1:0';
    const at = new Date();
    await db.send(
      new TransactWriteCommand({
        TransactItems: [modelTotalsWrite('managed', model, { requests: 1, tokensIn: 120, tokensOut: 80, cost: 180_000 }, at)],
      }),
    );
    await db.send(
      new TransactWriteCommand({
        TransactItems: [modelTotalsWrite('managed', model, { requests: 1, tokensIn: 30, tokensOut: 20, cost: 45_000 }, at)],
      }),
    );
    const res = await info(managedInfo, `/api/managed/model-info/${model}`, model);
    expect(res.body.usage).toEqual({ totalInvocations: 2, totalInputTokens: 150, totalOutputTokens: 100, estimatedCost: 0.000225 });
  });

  test('an unknown model is 404 in the spec error shape', async () => {
    const res = await info(managedInfo, '/api/managed/model-info/acme.unknown-v1:0', 'acme.unknown-v1:0');
    expect(res.status).toBe(expectStandardError(res.body, 404));
    expect(res.body.error).toBe("Model 'acme.unknown-v1:0' was not found on the managed platform");
  });

  test.each(['bad id', 'meta/llama-3.1-8b-instruct', "x'; drop"])('a malformed id (%j) is 400', async (modelId) => {
    const res = await info(managedInfo, '/api/managed/model-info/x', modelId);
    expect(res.status).toBe(expectStandardError(res.body, 400));
    expect(res.body.error).toContain("'modelId'");
  });
});

describe('GET /api/hosted/model-info/{modelId+}', () => {
  test('the id with its slash (greedy path parameter) answers the spec fields', async () => {
    const res = await info(hostedInfo, `/api/hosted/model-info/${LLAMA}`, LLAMA);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['modelInfo', 'success', 'systemPrompt', 'usage']);
    expect(Object.keys(res.body.modelInfo).sort()).toEqual([
      'customizationsSupported',
      'inferenceTypesSupported',
      'inputModalities',
      'modelArn',
      'modelId',
      'modelLifecycle',
      'modelName',
      'outputModalities',
      'pricing',
      'providerName',
      'responseStreamingSupported',
    ]);
    expect(res.body.modelInfo).toMatchObject({
      modelId: LLAMA,
      modelName: 'Llama 3.1 8B Instruct',
      providerName: 'meta',
      customizationsSupported: ['SYSTEM_PROMPT'],
      responseStreamingSupported: true,
      modelLifecycle: { status: 'ACTIVE' },
      pricing: { inputTokens: '$0.0003 per 1K input tokens', outputTokens: '$0.0003 per 1K output tokens' },
    });
    expect(typeof res.body.systemPrompt).toBe('string');
    expect(res.body.usage).toEqual({ totalInvocations: 0, totalInputTokens: 0, totalOutputTokens: 0, estimatedCost: 0 });
  });

  test('the id with its slash URL-encoded as %2F answers the same model', async () => {
    const plain = await info(hostedInfo, `/api/hosted/model-info/${LLAMA}`, LLAMA);
    const encoded = await info(hostedInfo, '/api/hosted/model-info/meta%2Fllama-3.1-8b-instruct', 'meta%2Fllama-3.1-8b-instruct');
    expect(encoded.status).toBe(200);
    expect(encoded.body).toEqual(plain.body);
  });

  test('usage counts the hosted model under its own id', async () => {
    const model = 'google/gemma-2-9b-it';
    await db.send(
      new TransactWriteCommand({
        TransactItems: [modelTotalsWrite('hosted', model, { requests: 3, tokensIn: 9, tokensOut: 12, cost: 42_000 }, new Date())],
      }),
    );
    const res = await info(hostedInfo, `/api/hosted/model-info/${model}`, model);
    expect(res.body.usage).toEqual({ totalInvocations: 3, totalInputTokens: 9, totalOutputTokens: 12, estimatedCost: 0.000042 });
  });

  test('an unknown model is 404 in the spec error shape', async () => {
    const res = await info(hostedInfo, '/api/hosted/model-info/meta/no-such-model', 'meta/no-such-model');
    expect(res.status).toBe(expectStandardError(res.body, 404));
    expect(res.body.error).toBe("Model 'meta/no-such-model' was not found on the hosted platform");
  });

  test.each(['meta/../secrets', 'a b', 'meta%2F%2E%2E'])('a malformed id (%j) is 400', async (modelId) => {
    const res = await info(hostedInfo, '/api/hosted/model-info/x', modelId);
    expect(res.status).toBe(400);
  });

  test('needs a token', async () => {
    expect((await info(hostedInfo, `/api/hosted/model-info/${LLAMA}`, LLAMA, null)).status).toBe(401);
  });
});

describe('POST /api/admin/sync-models', () => {
  const sync = (token?: string) => call(syncModels as Handler, { method: 'POST', path: '/api/admin/sync-models', token });

  test('a user is refused with 403', async () => {
    const res = await sync(userToken);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: 'Admin privileges required' });
  });

  test('no token is 401', async () => {
    expect((await sync()).status).toBe(401);
  });

  test('an admin refreshes every platform and gets counts per platform; a second sync finds nothing changed', async () => {
    const first = await sync(adminToken);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['errors', 'platforms', 'success', 'syncedAt']);
    expect(first.body.success).toBe(true);
    expect(first.body.syncedAt).toMatch(ISO);
    expect(first.body.errors).toEqual([]);
    expect(Object.keys(first.body.platforms).sort()).toEqual(['dedicated', 'hosted', 'managed']);
    for (const [platform, total] of [
      ['managed', 14],
      ['dedicated', 12],
      ['hosted', 8],
    ] as const) {
      const report = first.body.platforms[platform];
      expect(Object.keys(report).sort()).toEqual(['added', 'changed', 'removed', 'status', 'total', 'unchanged']);
      expect(report.status).toBe('refreshed');
      expect(report.total).toBe(total);
      expect(report.added + report.changed + report.unchanged).toBe(total);
    }

    const second = await sync(adminToken);
    expect(second.body.platforms.managed).toEqual({ status: 'refreshed', total: 14, added: 0, removed: 0, changed: 0, unchanged: 14 });
    expect(second.body.platforms.dedicated).toEqual({ status: 'refreshed', total: 12, added: 0, removed: 0, changed: 0, unchanged: 12 });
    expect(second.body.platforms.hosted).toEqual({ status: 'refreshed', total: 8, added: 0, removed: 0, changed: 0, unchanged: 8 });
  });

  test('a sync reports models that appeared and disappeared since the cached copy', async () => {
    const cached = await getCatalogue<{ id: string }>('hosted', WHOLE_CATALOGUE);
    const entries = (cached?.entries ?? []).filter((m) => m.id !== LLAMA);
    entries.push({ id: 'acme/retired-model', name: 'Retired Model', provider: 'hosted', tags: ['retired', 'chat'], task: 'chat' } as never);
    await putCatalogue({ ...(cached as NonNullable<typeof cached>), entries });
    const res = await sync(adminToken);
    expect(res.body.platforms.hosted).toEqual({ status: 'refreshed', total: 8, added: 1, removed: 1, changed: 0, unchanged: 7 });
  });

  test('a sync drops cached dedicated searches', async () => {
    await putCatalogue({
      platform: 'dedicated',
      variant: { kind: 'search', source: 'public', search: 'llama' },
      entries: [],
      complete: true,
      fetchedAt: new Date().toISOString(),
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
    const res = await sync(adminToken);
    expect(res.body).toMatchObject({ platforms: { dedicated: { status: 'refreshed' } } });
    expect(await listCachedVariants('dedicated')).toEqual([
      { kind: 'source', source: 'account' },
      { kind: 'source', source: 'public' },
    ]);
  });

  test('a super_admin may sync too', async () => {
    const { token } = await makeUser('super_admin');
    expect((await sync(token)).status).toBe(200);
  });
});
