import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handler as createConversation } from '../../functions/conversations/create';
import { handler as listConversations } from '../../functions/conversations/list';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { deployedResourceBody, managedResource, newConversation } from './chat-fixtures';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

const create = (token: string, body: unknown) => call(createConversation as Handler, { method: 'POST', token, body });
const list = (token: string, query: Record<string, string> = {}) => call(listConversations as Handler, { token, query });
const messagesOf = (token: string, id: string, query: Record<string, string> = {}) =>
  call(conversationMessages as Handler, { token, pathParameters: { id }, query });

const valid = () => ({ title: 'Support bot', use_case: 'customer support', deployed_resource: deployedResourceBody() });

describe('POST /api/conversations', () => {
  test('creates a conversation of the caller and answers success with its conversation_id', async () => {
    const { token, user } = await makeUser('user');
    const res = await create(token, valid());
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.conversation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.conversation).toMatchObject({
      id: res.body.conversation_id,
      user_id: user.id,
      title: 'Support bot',
      use_case: 'customer support',
      deployed_resource: valid().deployed_resource,
    });
    expect(res.raw).not.toMatch(/"PK"|GSI1/);
  });

  test.each([
    ['a missing title', (b: any) => delete b.title, "Missing required field 'title'"],
    ['a blank title', (b: any) => (b.title = '   '), "Invalid field 'title'"],
    ['a missing use_case', (b: any) => delete b.use_case, "Missing required field 'use_case'"],
    ['a missing deployed_resource', (b: any) => delete b.deployed_resource, "Missing required field 'deployed_resource'"],
    ['a missing deployed_resource.region', (b: any) => delete b.deployed_resource.region, "Missing required field 'deployed_resource.region'"],
    [
      'a text estimated_hourly_cost',
      (b: any) => (b.deployed_resource.estimated_hourly_cost = '1.2'),
      "Invalid field 'deployed_resource.estimated_hourly_cost'",
    ],
    [
      'a negative estimated_hourly_cost',
      (b: any) => (b.deployed_resource.estimated_hourly_cost = -1),
      "Invalid field 'deployed_resource.estimated_hourly_cost'",
    ],
    ['an unknown resource_type', (b: any) => (b.deployed_resource.resource_type = 'mainframe'), "Invalid field 'deployed_resource.resource_type'"],
    ['an unknown field', (b: any) => (b.owner = 'someone-else'), "Unknown field 'owner'"],
  ])('%s is 400 naming the field', async (_what, spoil, expected) => {
    const { token } = await makeUser('user');
    const body = valid();
    spoil(body);
    const res = await create(token, body);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toContain(expected);
  });
});

describe('GET /api/conversations', () => {
  test("lists only the caller's conversations, newest first, page by page with a cursor", async () => {
    const a = await makeUser('user');
    const b = await makeUser('user');
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push(await newConversation(a.token, undefined, `A${i}`));
      await new Promise((r) => setTimeout(r, 3));
    }
    await newConversation(b.token, undefined, 'B0');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await list(a.token, { limit: '2', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.conversations.length).toBeLessThanOrEqual(2);
      expect(res.body.count).toBe(res.body.conversations.length);
      seen.push(...res.body.conversations.map((c: { id: string }) => c.id));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...mine].reverse());
  });

  test("a cursor from another user's listing is refused with 400", async () => {
    const a = await makeUser('user');
    const b = await makeUser('user');
    await newConversation(a.token);
    await newConversation(a.token);
    const page = await list(a.token, { limit: '1' });
    const res = await list(b.token, { cursor: page.body.nextCursor });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid cursor');
  });
});

describe('GET /api/conversations/{id}/messages', () => {
  test('returns thread and legacy messages together in time order, paginated', async () => {
    const { token } = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(token, resource);
    const t1 = await call(postThread as Handler, { method: 'POST', token, body: { message: 'thread one', conversationId, resourceId: resource.id } });
    const l1 = await call(postLegacy as Handler, { method: 'POST', token, body: { message: 'legacy one', conversationId, resourceId: resource.id } });
    const t2 = await call(postThread as Handler, {
      method: 'POST',
      token,
      body: { message: 'thread two', conversationId, resourceId: resource.id, threadId: t1.body.threadId },
    });
    expect([t1.status, l1.status, t2.status]).toEqual([200, 200, 200]);

    const all: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await messagesOf(token, conversationId, { limit: '4', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      all.push(...res.body.messages);
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(all.map((m) => [m.role, m.source])).toEqual([
      ['user', 'thread'],
      ['assistant', 'thread'],
      ['user', 'legacy'],
      ['assistant', 'legacy'],
      ['user', 'thread'],
      ['assistant', 'thread'],
    ]);
    expect(all.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['thread one', 'legacy one', 'thread two']);
    expect(all[0].thread_id).toBe(t1.body.threadId);
    expect(all[2].thread_id).toBeNull();
  });

  test('an unknown conversation is 404', async () => {
    const { token } = await makeUser('user');
    const res = await messagesOf(token, randomUUID());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Conversation not found' });
  });
});
