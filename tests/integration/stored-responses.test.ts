/**
 * Stored responses (issue 35, section 3), through the official openai SDK over HTTP: POST
 * /v1/responses behind its function URL (local/lambda-url.ts, as CloudFront routes it), GET and
 * DELETE /v1/responses/{id} as API Gateway routes them, all in this process against DynamoDB Local
 * and the emulator. The emulator's model says how many messages it received and the earlier user
 * messages among them, so a continuation shows what reached the model.
 */
import { jest } from '@jest/globals';
import OpenAI from 'openai';
import { config } from '../../core/config';
import { handler as createKey } from '../../functions/keys/create';
import { handler as revokeKey } from '../../functions/keys/revoke';
import { handler as getResponse } from '../../functions/gateway/responses-get';
import { handler as deleteResponse } from '../../functions/gateway/responses-delete';
import { installAwsLambdaGlobal, startLambdaUrl, type LambdaUrl } from '../../local/lambda-url';
import { getStoredResponse } from '../../tables/responses';
import type { Resource } from '../../tables/resources';
import { startDoor } from '../helpers/door';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, managedResource } from './chat-fixtures';

jest.setTimeout(60_000);

let resource: Resource;
let url: LambdaUrl;
let door: Awaited<ReturnType<typeof startDoor>>;
let owner: Awaited<ReturnType<typeof makeUser>>;
/** Two keys of one owner: stored responses are each key's own. */
let a: { key: string; id: string };
let b: { key: string; id: string };

async function newKey(name: string) {
  const res = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name } });
  expect(res.status).toBe(201);
  return { key: res.body.key as string, id: res.body.id as string };
}

const client = (key: string) => new OpenAI({ baseURL: `${door.url}/v1`, apiKey: key, maxRetries: 0 });

beforeAll(async () => {
  resource = await listed(managedResource());
  installAwsLambdaGlobal();
  const { handler } = await import('../../functions/gateway/responses-stream');
  url = await startLambdaUrl({ handler, functionName: 'responsesStream' });
  door = await startDoor([
    { method: 'POST', path: '/v1/responses', url },
    { method: 'GET', path: '/v1/responses/{id}', handler: getResponse as Handler },
    { method: 'DELETE', path: '/v1/responses/{id}', handler: deleteResponse as Handler },
  ]);
  owner = await makeUser('user');
  [a, b] = await Promise.all([newKey('a'), newKey('b')]);
});
afterAll(async () => {
  await door?.close();
  await url?.close();
});

describe('a stored response', () => {
  test('is stored by default, read back by id as answered, and continued by previous_response_id with the whole conversation', async () => {
    const first = await client(a.key).responses.create({ model: resource.name, input: 'alpha' });
    expect(first).toMatchObject({ store: true, previous_response_id: null });

    const read = await client(a.key).responses.retrieve(first.id);
    expect(read.id).toBe(first.id);
    expect(read.output_text).toBe(first.output_text);

    const second = await client(a.key).responses.create({ model: resource.name, input: 'beta', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    // alpha, its answer, beta.
    expect(second.output_text).toContain('Context: 3 messages received; earlier user messages: [alpha]');
  });

  test('a streamed response is stored before its last event, and is continued like any other', async () => {
    const first = await client(a.key).responses.create({ model: resource.name, input: 'gamma' });
    const stream = await client(a.key).responses.create({ model: resource.name, input: 'delta', previous_response_id: first.id, stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    expect(completed).toMatchObject({ store: true, previous_response_id: first.id });

    const third = await client(a.key).responses.create({ model: resource.name, input: 'epsilon', previous_response_id: completed?.id });
    expect(third.output_text).toContain('Context: 5 messages received; earlier user messages: [gamma | delta]');
  });

  test("is the owner's data under its key: kept for RESPONSES_TTL_DAYS in DynamoDB's ttl", async () => {
    const res = await client(a.key).responses.create({ model: resource.name, input: 'kept' });
    const stored = await getStoredResponse(a.id, res.id);
    expect(stored?.userId).toBe(owner.user.id);
    expect(stored?.expiresAt).toBe(res.created_at + config.responses.ttlDays * 86_400);
  });

  test('store: false keeps nothing, and says so', async () => {
    const res = await client(a.key).responses.create({ model: resource.name, input: 'forget me', store: false });
    expect(res).toMatchObject({ store: false });
    await expect(client(a.key).responses.retrieve(res.id)).rejects.toMatchObject({ status: 404 });
  });

  test('DELETE removes it: deleted once, then not found', async () => {
    const res = await client(a.key).responses.create({ model: resource.name, input: 'short-lived' });
    expect(await client(a.key).responses.delete(res.id)).toEqual({ id: res.id, object: 'response', deleted: true });
    await expect(client(a.key).responses.retrieve(res.id)).rejects.toMatchObject({ status: 404 });
    await expect(client(a.key).responses.delete(res.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("another key's response", () => {
  test('is not found, as OpenAI answers an unknown id: 404 to GET and DELETE, 400 previous_response_not_found to a continuation', async () => {
    const mine = await client(a.key).responses.create({ model: resource.name, input: 'private' });
    const other = client(b.key);
    const read = await other.responses.retrieve(mine.id).catch((err: unknown) => err);
    expect(read).toBeInstanceOf(OpenAI.NotFoundError);
    expect((read as InstanceType<typeof OpenAI.NotFoundError>).message).toContain(`Response with id '${mine.id}' not found.`);
    await expect(other.responses.delete(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await other.responses.create({ model: resource.name, input: 'x', previous_response_id: mine.id }).catch((err: unknown) => err);
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
    expect(continued).toMatchObject({ status: 400, code: 'previous_response_not_found', param: 'previous_response_id' });
    // Still there for its own key.
    expect((await client(a.key).responses.retrieve(mine.id)).id).toBe(mine.id);
  });
});

describe('revoking the key', () => {
  test('deletes the responses it stored', async () => {
    const c = await newKey('c');
    const res = await client(c.key).responses.create({ model: resource.name, input: 'goes with the key' });
    expect(await getStoredResponse(c.id, res.id)).toBeDefined();
    const revoked = await call(revokeKey as Handler, { method: 'DELETE', token: owner.token, pathParameters: { keyId: c.id } });
    expect(revoked.status).toBe(200);
    expect(await getStoredResponse(c.id, res.id)).toBeUndefined();
  });
});
