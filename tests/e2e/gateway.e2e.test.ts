/**
 * The gateway as OpenAI clients see it: the official `openai` npm package against serverless-offline
 * over HTTP (the local stack `npm start` runs), with a key made through the API and resources deployed
 * through it. Each OpenAI error class here is what the SDK makes of the gateway's status and body.
 */
import OpenAI from 'openai';
import { BASE, http, loginAsAdmin } from './http';

const MANAGED_MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const HOSTED_MODEL = 'meta/llama-3.1-8b-instruct';
const suffix = Math.random().toString(36).slice(2, 8);
const managedName = `gw-managed-${suffix}`;
const hostedName = `gw-hosted-${suffix}`;

let admin: string;
let keyId: string;
let client: OpenAI;

const clientFor = (apiKey: string) => new OpenAI({ baseURL: `${BASE()}/v1`, apiKey, maxRetries: 0, timeout: 30_000 });

async function newKey(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await http('POST', '/api/keys', { token: admin, body: { name: `e2e-${suffix}`, ...body } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, key: res.body.key as string };
}

beforeAll(async () => {
  admin = await loginAsAdmin();
  const managed = await http('POST', '/api/deploy/managed', {
    token: admin,
    body: { modelId: MANAGED_MODEL, endpointName: managedName, dryRun: false },
  });
  const hosted = await http('POST', '/api/deploy/hosted', { token: admin, body: { modelId: HOSTED_MODEL, endpointName: hostedName, dryRun: false } });
  expect([managed.status, hosted.status]).toEqual([200, 200]);
  const key = await newKey({});
  keyId = key.id;
  client = clientFor(key.key);
}, 60_000);

test('the SDK lists the deployed resources as models named by their endpoint names', async () => {
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  expect(ids).toEqual(expect.arrayContaining([managedName, hostedName]));
});

test.each([
  ['managed', () => managedName],
  ['hosted', () => hostedName],
])('a %s completion comes back in OpenAI’s shape with its usage, cost and request id', async (_platform, name) => {
  const { data, response } = await client.chat.completions
    .create({ model: name(), messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 50 })
    .withResponse();
  expect(data.object).toBe('chat.completion');
  expect(data.model).toBe(name());
  expect(data.choices[0]?.message.role).toBe('assistant');
  expect(data.choices[0]?.message.content?.length).toBeGreaterThan(0);
  expect(data.usage?.total_tokens).toBe((data.usage?.prompt_tokens ?? 0) + (data.usage?.completion_tokens ?? 0));
  expect(Number(response.headers.get('x-model-ops-cost-usd'))).toBeGreaterThan(0);
  expect(response.headers.get('x-request-id')).toBeTruthy();
});

test('the key’s usage counts the calls it made', async () => {
  const res = await http('GET', `/api/usage/current?keyId=${keyId}`, { token: admin });
  expect(res.status).toBe(200);
  expect(res.body.mtd.requests).toBeGreaterThanOrEqual(2);
});

test('an unknown model is the SDK’s NotFoundError with code model_not_found', async () => {
  const err = await client.chat.completions
    .create({ model: `no-such-${suffix}`, messages: [{ role: 'user', content: 'Hi' }] })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
});

test('a route the gateway does not serve is the SDK’s NotFoundError with code unknown_url and a message naming the route', async () => {
  // The legacy completions API (POST /v1/completions), which this gateway does not serve.
  const err = await client.completions.create({ model: managedName, prompt: 'Hello' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  const notFound = err as InstanceType<typeof OpenAI.NotFoundError>;
  expect(notFound.code).toBe('unknown_url');
  expect(notFound.type).toBe('invalid_request_error');
  expect(notFound.param).toBeNull();
  expect(notFound.error).toMatchObject({ message: expect.stringMatching(/^Unknown request URL: POST \/v1\/completions\. /) });
});

test('a parameter the gateway does not support yet is the SDK’s BadRequestError with code unsupported_parameter', async () => {
  const err = await client.chat.completions
    .create({ model: managedName, messages: [{ role: 'user', content: 'Hi' }], logprobs: true })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err).toMatchObject({ code: 'unsupported_parameter', param: 'logprobs' });
});

test('a bad request is the SDK’s BadRequestError naming the parameter', async () => {
  const err = await client.chat.completions
    .create({ model: managedName, messages: [{ role: 'user', content: 'Hi' }], temperature: 7 })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toMatch(/temperature/);
});

test('a key whose budget cannot cover the call is the SDK’s RateLimitError with code budget_exceeded', async () => {
  const tiny = await newKey({ monthly_budget_usd: 0.000001 });
  const err = await clientFor(tiny.key)
    .chat.completions.create({ model: managedName, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 500 })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('budget_exceeded');
});

test('a revoked key, a made-up key and a login token are the SDK’s AuthenticationError', async () => {
  const revoked = await newKey({});
  expect((await http('DELETE', `/api/keys/${revoked.id}`, { token: admin })).status).toBe(200);
  for (const apiKey of [revoked.key, `mo_${'x'.repeat(43)}`, admin]) {
    const err = await clientFor(apiKey)
      .models.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
  }
});

test('a resource its owner may not use is the SDK’s NotFoundError model_not_found and is not listed; once granted it is both', async () => {
  const name = `gw-restricted-${suffix}`;
  const deployed = await http('POST', '/api/deploy/managed', { token: admin, body: { modelId: MANAGED_MODEL, endpointName: name, dryRun: false } });
  expect(deployed.status).toBe(200);
  expect((await http('PUT', `/api/resources/${deployed.body.id}/access`, { token: admin, body: { everyone: false } })).status).toBe(200);
  const username = `gw_user_${suffix}`;
  const created = await http('POST', '/api/admin/users', {
    token: admin,
    body: { username, email: `${username}@example.com`, name: 'Gateway user', role: 'user', password: 'a-long-password' },
  });
  expect(created.status).toBe(201);
  const login = await http('POST', '/api/auth/login', { body: { username, password: 'a-long-password' } });
  const key = await http('POST', '/api/keys', { token: login.body.token, body: { name: 'mine' } });
  const theirs = clientFor(key.body.key);
  const listed = async () => {
    const ids: string[] = [];
    for await (const model of theirs.models.list()) ids.push(model.id);
    return ids;
  };
  const ask = () => theirs.chat.completions.create({ model: name, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 20 });

  const err = await ask().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  expect(await listed()).not.toContain(name);

  const granted = await http('PUT', `/api/resources/${deployed.body.id}/access`, {
    token: admin,
    body: { everyone: false, user_ids: [created.body.user.id] },
  });
  expect(granted.status).toBe(200);
  expect((await ask()).object).toBe('chat.completion');
  expect(await listed()).toContain(name);
});
