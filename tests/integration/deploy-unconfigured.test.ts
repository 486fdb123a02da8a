import { jest } from '@jest/globals';
import { call, type Handler } from '../helpers/invoke';

// Integration calls go through DynamoDB Local and the emulator; a loaded machine needs headroom.
jest.setTimeout(60_000);

/**
 * A service without the dedicated network settings and without a hosted key (spec 4.3's required
 * configuration). Config is read once at import, so the environment is changed first and the
 * handlers imported after.
 */
let h: { dedicated: Handler; hosted: Handler };
let admin: string;
const savedEnv = { ...process.env };

afterAll(() => {
  process.env = savedEnv;
});

beforeAll(async () => {
  Object.assign(process.env, { DEDICATED_SUBNET_IDS: '', DEDICATED_SECURITY_GROUP_IDS: '', HOSTED_API_KEY: '' });
  h = {
    dedicated: (await import('../../functions/deploy/dedicated')).handler as Handler,
    hosted: (await import('../../functions/deploy/hosted')).handler as Handler,
  };
  admin = (await (await import('../helpers/users')).makeUser('admin')).token;
});

test('a dedicated deploy, dry run or not, is 400 when the network configuration is missing', async () => {
  for (const dryRun of [true, false]) {
    const res = await call(h.dedicated, {
      method: 'POST',
      token: admin,
      body: { endpointName: 'no-network', instanceType: 'ml.g5.xlarge', inferenceImage: 'img:1', dryRun },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'The dedicated network configuration is missing: DEDICATED_SUBNET_IDS and DEDICATED_SECURITY_GROUP_IDS must be set in the service configuration',
    );
  }
});

test('a hosted deploy is 400 when no hosted API key is configured', async () => {
  const res = await call(h.hosted, { method: 'POST', token: admin, body: { modelId: 'meta/llama-3.1-8b-instruct' } });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('The hosted API key is not configured: set HOSTED_API_KEY');
});
