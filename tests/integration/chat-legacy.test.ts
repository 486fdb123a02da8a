import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { handler as getLegacy } from '../../functions/chat/legacy-get';
import { handler as usageCurrent } from '../../functions/usage/current';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { MANAGED_MODEL, hostedResource, managedResource, newConversation, ok } from './chat-fixtures';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

const post = (token: string, body: unknown) => call(postLegacy as Handler, { method: 'POST', path: '/api/chat', token, body });

describe('POST /api/chat (legacy)', () => {
  test('answers with response and metadata (model_response_time in seconds, tokens_used, model_id, user_id, username)', async () => {
    const { token, user } = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(token, resource);
    const res = await post(token, { message: 'Hello there', conversationId, resourceId: resource.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      response: expect.stringContaining('You said: "Hello there"'),
      metadata: {
        model_response_time: expect.any(Number),
        tokens_used: expect.any(Number),
        model_id: MANAGED_MODEL,
        user_id: user.id,
        username: user.username,
      },
    });
    expect(res.body.metadata.tokens_used).toBeGreaterThan(0);
  });

  test('sends no earlier messages as context', async () => {
    const { token } = await makeUser('user');
    const resource = await hostedResource();
    const conversationId = await newConversation(token, resource);
    await ok(post(token, { message: 'first', conversationId, resourceId: resource.id }));
    const second = await post(token, { message: 'second', conversationId, resourceId: resource.id });
    expect(second.body.response).toContain('Context: 1 messages received; earlier user messages: []');
  });

  test('a missing field is 400 and an unknown resource or conversation is 404, in the standard error shape', async () => {
    const { token } = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(token, resource);
    const missing = await post(token, { conversationId, resourceId: resource.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, error: "Missing required field 'message'", details: 'Invalid request body' });
    const noResource = await post(token, { message: 'hi', conversationId, resourceId: randomUUID() });
    expect(noResource.status).toBe(404);
    expect(noResource.body).toEqual({ success: false, error: 'Resource not found' });
    const noConversation = await post(token, { message: 'hi', conversationId: randomUUID(), resourceId: resource.id });
    expect(noConversation.body).toEqual({ success: false, error: 'Conversation not found' });
  });
});

describe('GET /api/chat/legacy', () => {
  test('returns the legacy messages in order with role, content, timestamp, metadata, the source marker and the count', async () => {
    const { token, user } = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(token, resource);
    await ok(post(token, { message: 'one', conversationId, resourceId: resource.id }));
    await ok(post(token, { message: 'two', conversationId, resourceId: resource.id }));
    const res = await call(getLegacy as Handler, { token, query: { conversationId } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, source: 'legacy', count: 4 });
    expect(res.body.messages.map((m: any) => Object.keys(m).sort())).toEqual(Array(4).fill(['content', 'metadata', 'role', 'timestamp']));
    expect(res.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(res.body.messages[0]).toMatchObject({ content: 'one', metadata: { username: user.username, resource_id: resource.id } });
    expect(res.body.messages[3].metadata).toMatchObject({ model_id: MANAGED_MODEL, username: user.username });
  });

  test('a conversation without legacy messages gives an empty list, an unknown one 404', async () => {
    const { token } = await makeUser('user');
    const conversationId = await newConversation(token);
    expect((await call(getLegacy as Handler, { token, query: { conversationId } })).body).toMatchObject({
      success: true,
      messages: [],
      count: 0,
      source: 'legacy',
    });
    expect((await call(getLegacy as Handler, { token, query: { conversationId: randomUUID() } })).status).toBe(404);
  });

  test('legacy turns are counted in usage like thread turns', async () => {
    const { token } = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(token, resource);
    const a = await post(token, { message: 'one', conversationId, resourceId: resource.id });
    const b = await post(token, { message: 'two', conversationId, resourceId: resource.id });
    const usage = await call(usageCurrent as Handler, { token, query: { conversationId } });
    expect(usage.body.mtd).toMatchObject({ requests: 2, tokens_total: a.body.metadata.tokens_used + b.body.metadata.tokens_used });
    expect(usage.body.mtd.cost_usd).toBeGreaterThan(0);
  });
});
