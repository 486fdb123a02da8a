/**
 * A /v1 route that speaks Anthropic's Messages API (keyEndpoint with dialect 'anthropic'): the API key
 * in x-api-key or as a bearer credential, anthropic-version accepted, the request id in both
 * `x-request-id` and Anthropic's `request-id`, and every refusal in Anthropic's error shape. The
 * OpenAI routes keep taking the key as a bearer credential only, with OpenAI's wording.
 */
import { handler as createKey } from '../../functions/keys/create';
import { handler as revokeKey } from '../../functions/keys/revoke';
import { MessagesBody } from '../../generated/checks/gateway';
import { keyEndpoint } from '../../lib/http/key-endpoint';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

// The route's stack as the lead wires it, with a handler that only says who called.
const anthropicRoute = keyEndpoint({ body: MessagesBody, dialect: 'anthropic' }, async ({ key }) => ({ keyId: key.id })) as Handler;
const openAiRoute = keyEndpoint({}, async ({ key }) => ({ keyId: key.id })) as Handler;

const body = { model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
const post = (route: Handler, headers: Record<string, string>, payload: unknown = body) =>
  call(route, { method: 'POST', path: '/v1/messages', headers, body: payload });

async function newKey() {
  const { token } = await makeUser('user');
  const created = await call(createKey as Handler, { method: 'POST', token, body: { name: 'claude-code' } });
  return { token, id: created.body.id as string, secret: created.body.key as string };
}

describe('the key on an Anthropic route', () => {
  test('is taken from x-api-key, with any anthropic-version, and the answer names its request both ways', async () => {
    const key = await newKey();
    const res = await post(anthropicRoute, { 'x-api-key': key.secret, 'anthropic-version': '2023-06-01' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keyId: key.id });
    expect(res.headers['request-id']).toEqual(expect.any(String));
    expect(res.headers['x-request-id']).toBe(res.headers['request-id']);
  });

  test('is taken as a bearer credential too (the 1.x Anthropic clients send it so)', async () => {
    const key = await newKey();
    const res = await post(anthropicRoute, { authorization: `Bearer ${key.secret}`, 'anthropic-version': '2026-10-21' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keyId: key.id });
  });

  test('missing, it is refused in Anthropic’s shape, naming both headers', async () => {
    const res = await post(anthropicRoute, { 'anthropic-version': '2023-06-01' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Missing API key: send it as "x-api-key: mo_..." or "Authorization: Bearer mo_..."' },
    });
  });

  test('revoked, it is refused on the next call, in Anthropic’s shape', async () => {
    const key = await newKey();
    await call(revokeKey as Handler, { method: 'DELETE', token: key.token, pathParameters: { keyId: key.id } });
    const res = await post(anthropicRoute, { 'x-api-key': key.secret });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'This API key has been revoked' } });
  });

  test('a wrong key is refused without a hint of whose it could be', async () => {
    const res = await post(anthropicRoute, { 'x-api-key': 'mo_' + 'x'.repeat(43) });
    expect(res.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'Incorrect API key provided' } });
  });
});

describe('a request an Anthropic route refuses', () => {
  test('a body the check refuses is an invalid_request_error naming the field', async () => {
    const key = await newKey();
    const res = await post(anthropicRoute, { 'x-api-key': key.secret }, { model: 'claude', messages: body.messages });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: "Missing required field 'max_tokens': Invalid request body" },
    });
  });

  test('malformed JSON is an invalid_request_error too', async () => {
    const key = await newKey();
    const res = await post(anthropicRoute, { 'x-api-key': key.secret }, '{"model": ');
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('error');
    expect(res.body.error.type).toBe('invalid_request_error');
  });
});

describe('the OpenAI routes', () => {
  test('do not take x-api-key, and keep OpenAI’s wording and shape', async () => {
    const key = await newKey();
    const res = await call(openAiRoute, { headers: { 'x-api-key': key.secret } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: {
        message: 'Missing API key: send it as "Authorization: Bearer mo_..."',
        type: 'authentication_error',
        code: 'invalid_api_key',
        param: null,
      },
    });
    expect(res.headers['request-id']).toBeUndefined();
  });
});
