/**
 * Every upstream fault on the model endpoints becomes the spec's error shape (section 7) with a
 * message naming the platform and nothing of the upstream's internals.
 *
 * Faults on catalogue listings cannot be scoped to a model (a listing names none), so this file runs
 * the handlers against an emulator of its own: the service is configured for it through the
 * environment before any service module is loaded, exactly as a deployment is configured. Short
 * upstream timeouts keep the timeout cases quick.
 */
import { jest } from '@jest/globals';
import { startEmulator } from '../../local/emulator/server';
import { control, injectFault } from '../emulator/helpers';
import type { Handler } from '../helpers/invoke';

jest.setTimeout(60_000);

const emulator = await startEmulator({ port: 0, hostedApiKey: 'faults-hosted-key' });
Object.assign(process.env, {
  SERVICE_CLOUD_ENDPOINT: emulator.url,
  HOSTED_BASE_URL: `${emulator.url}/v1`,
  HOSTED_API_KEY: 'faults-hosted-key',
  UPSTREAM_TIMEOUT_MS: '300',
  UPSTREAM_MAX_ATTEMPTS: '2',
});

// Loaded only now, so that core/config reads the environment above.
const { call } = await import('../helpers/invoke');
const { makeUser } = await import('../helpers/users');
const { handler: listManaged } = await import('../../functions/models/list-managed');
const { handler: listDedicated } = await import('../../functions/models/list-dedicated');
const { handler: listHosted } = await import('../../functions/models/list-hosted');
const { handler: managedInfo } = await import('../../functions/models/managed-model-info');
const { handler: hostedInfo } = await import('../../functions/models/hosted-model-info');
const { handler: syncModels } = await import('../../functions/models/sync-models');
const { WHOLE_CATALOGUE, deleteCatalogue, getCatalogue, putCatalogue } = await import('../../tables/catalogue');

let token: string;
let adminToken: string;
beforeAll(async () => {
  token = (await makeUser('user')).token;
  adminToken = (await makeUser('admin')).token;
});
beforeEach(async () => {
  // Every case starts with no cached catalogue, so the platform is asked.
  await Promise.all([
    deleteCatalogue('managed', WHOLE_CATALOGUE),
    deleteCatalogue('hosted', WHOLE_CATALOGUE),
    deleteCatalogue('dedicated', { kind: 'source', source: 'public' }),
    deleteCatalogue('dedicated', { kind: 'source', source: 'account' }),
  ]);
});
afterEach(() => control(emulator.url, 'DELETE', '/faults'));
afterAll(() => emulator.close());

const get = (handler: unknown, path: string, query?: Record<string, string>) => call(handler as Handler, { path, query, token });

/** Words that would betray upstream internals: SDK and error class names, hosts, raw bodies. */
const INTERNALS =
  /Exception|InternalFailure|InternalServ|smithy|Deserialization|SyntaxError|ThrottlingException|\$metadata|stack|127\.0\.0\.1|localhost|emulator|problem|about:blank|x-amzn|requestId/i;

function expectUpstreamFailure(res: { status: number; body: any; raw: string }, message: string) {
  expect(res.status).toBe(502);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toBe(message);
  expect(Object.keys(res.body).every((k) => ['success', 'error', 'details'].includes(k))).toBe(true);
  expect(res.body.error).not.toMatch(INTERNALS);
  expect(res.body.details ?? '').not.toMatch(/smithy|Deserialization|SyntaxError|127\.0\.0\.1|stack/i);
}

const MESSAGES = (platform: string) => ({
  '500': `The ${platform} platform failed (status 500)`,
  '429': `The ${platform} platform is throttling requests`,
  timeout: `The ${platform} platform did not answer in time`,
  malformed: `The ${platform} platform returned a response that could not be read`,
});
const FAULTS = ['500', '429', 'timeout', 'malformed'] as const;

describe('faults on catalogue listings', () => {
  test.each(FAULTS)('GET /api/models/managed with a %s fault is 502 naming the managed platform', async (fault) => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault });
    expectUpstreamFailure(await get(listManaged, '/api/models/managed'), MESSAGES('managed')[fault]);
  });

  test.each(FAULTS)('GET /api/models/dedicated with a %s fault on the hub listing is 502 naming the dedicated platform', async (fault) => {
    await injectFault(emulator.url, { target: 'ListHubContents', fault });
    expectUpstreamFailure(await get(listDedicated, '/api/models/dedicated'), MESSAGES('dedicated')[fault]);
  });

  test.each(FAULTS)(
    'GET /api/models/dedicated?source=account with a %s fault on the registry is 502 naming the dedicated platform',
    async (fault) => {
      await injectFault(emulator.url, { target: 'ListModelPackages', fault });
      expectUpstreamFailure(await get(listDedicated, '/api/models/dedicated', { source: 'account' }), MESSAGES('dedicated')[fault]);
    },
  );

  test('a fault on describing one hub model fails the dedicated listing the same way', async () => {
    await injectFault(emulator.url, { target: 'DescribeHubContent', model: 'huggingface-llm-gemma-2b-instruct', fault: '500' });
    expectUpstreamFailure(await get(listDedicated, '/api/models/dedicated'), MESSAGES('dedicated')['500']);
  });

  test.each(FAULTS)('GET /api/models/hosted with a %s fault is 502 naming the hosted platform', async (fault) => {
    await injectFault(emulator.url, { target: 'models.list', fault });
    expectUpstreamFailure(await get(listHosted, '/api/models/hosted'), MESSAGES('hosted')[fault]);
  });

  test('debug=1 with a fault is the same 502: the raw answer is never an error body', async () => {
    await injectFault(emulator.url, { target: 'models.list', fault: '500' });
    expectUpstreamFailure(await get(listHosted, '/api/models/hosted', { debug: '1' }), MESSAGES('hosted')['500']);
  });

  test('the upstream message may be shown as details, its error type never', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '500' });
    const res = await get(listManaged, '/api/models/managed');
    expect(res.body).toEqual({
      success: false,
      error: 'The managed platform failed (status 500)',
      details: 'An internal server error occurred. Retry your request.',
    });
  });
});

describe('stale catalogues', () => {
  test('when the platform fails and an expired copy is cached, the expired copy is served and marked stale', async () => {
    expect((await get(listManaged, '/api/models/managed')).status).toBe(200);
    const cached = await getCatalogue('managed', WHOLE_CATALOGUE);
    await putCatalogue({ ...(cached as NonNullable<typeof cached>), expiresAt: Math.floor(Date.now() / 1000) - 60 });
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '500' });
    const res = await get(listManaged, '/api/models/managed');
    expect(res.status).toBe(200);
    expect(res.headers['X-Catalogue-Source']).toBe('stale');
    expect(res.body.models).toHaveLength(11);
  });

  test('a fresh cached copy is served without asking the failing platform', async () => {
    expect((await get(listHosted, '/api/models/hosted')).status).toBe(200);
    await injectFault(emulator.url, { target: 'models.list', fault: '500' });
    const res = await get(listHosted, '/api/models/hosted');
    expect(res.status).toBe(200);
    expect(res.headers['X-Catalogue-Source']).toBe('cache');
  });
});

describe('faults on model detail', () => {
  test.each(FAULTS)('GET /api/managed/model-info with a %s fault is 502, not 404', async (fault) => {
    const id = 'amazon.nova-lite-v1:0';
    await injectFault(emulator.url, { target: 'GetFoundationModel', model: id, fault });
    expectUpstreamFailure(
      await call(managedInfo as Handler, { path: `/api/managed/model-info/${id}`, pathParameters: { modelId: id }, token }),
      MESSAGES('managed')[fault],
    );
  });

  test.each(FAULTS)('GET /api/hosted/model-info with a %s fault is 502, not 404', async (fault) => {
    const id = 'google/gemma-2-9b-it';
    await injectFault(emulator.url, { target: 'models.list', fault });
    expectUpstreamFailure(
      await call(hostedInfo as Handler, { path: `/api/hosted/model-info/${id}`, pathParameters: { modelId: id }, token }),
      MESSAGES('hosted')[fault],
    );
  });
});

describe('faults during sync-models', () => {
  const sync = () => call(syncModels as Handler, { method: 'POST', path: '/api/admin/sync-models', token: adminToken });

  test('one failing platform is reported while the others refresh', async () => {
    await injectFault(emulator.url, { target: 'ListHubContents', fault: '429' });
    const res = await sync();
    expect(res.status).toBe(200);
    expect(res.body.platforms.dedicated).toEqual({
      status: 'failed',
      error: 'The dedicated platform is throttling requests',
      details: 'Rate exceeded',
    });
    expect(res.body.platforms.managed.status).toBe('refreshed');
    expect(res.body.platforms.hosted.status).toBe('refreshed');
    expect(res.body.errors).toEqual(['The dedicated platform is throttling requests']);
  });

  test('when every platform fails the sync is a 502 in the spec error shape', async () => {
    await injectFault(emulator.url, { target: '*', fault: '500' });
    const res = await sync();
    expect(res.status).toBe(502);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toBe('No platform catalogue could be refreshed');
    expect(res.body.details).toContain('The managed platform failed (status 500)');
  });
});
