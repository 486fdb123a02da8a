import { jest } from '@jest/globals';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { handler as listConversations } from '../../functions/conversations/list';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as getThread } from '../../functions/chat/thread-get';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { handler as getLegacy } from '../../functions/chat/legacy-get';
import { handler as usageCurrent } from '../../functions/usage/current';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { managedResource, newConversation, ok } from './chat-fixtures';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

type Caller = Awaited<ReturnType<typeof makeUser>>;

let owner: Caller;
let resource: Resource;
let conversationId: string;
let threadId: string;

beforeAll(async () => {
  owner = await makeUser('user');
  resource = await managedResource();
  conversationId = await newConversation(owner.token, resource, "A's private conversation");
  const first = await ok(
    call(postThread as Handler, { method: 'POST', token: owner.token, body: { message: 'secret plans', conversationId, resourceId: resource.id } }),
  );
  threadId = first.body.threadId;
  await ok(
    call(postLegacy as Handler, { method: 'POST', token: owner.token, body: { message: 'legacy secret', conversationId, resourceId: resource.id } }),
  );
});

const reads = () =>
  [
    ['the conversation messages', (t: string) => call(conversationMessages as Handler, { token: t, pathParameters: { id: conversationId } })],
    ['the thread', (t: string) => call(getThread as Handler, { token: t, query: { threadId, conversationId } })],
    ['the legacy messages', (t: string) => call(getLegacy as Handler, { token: t, query: { conversationId } })],
    ['the usage', (t: string) => call(usageCurrent as Handler, { token: t, query: { conversationId } })],
  ] as const;

describe.each(['user', 'admin'] as const)("another %s cannot see or use someone's conversation", (role) => {
  let other: Caller;
  beforeAll(async () => {
    other = await makeUser(role);
  });

  test.each(reads().map(([name]) => name))('reading %s is 404, as if it did not exist', async (name) => {
    const read = reads().find(([n]) => n === name)![1];
    const res = await read(other.token);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Conversation not found');
    expect(res.raw).not.toContain('secret');
  });

  test('posting into the thread is 404 and writes nothing', async () => {
    const res = await call(postThread as Handler, {
      method: 'POST',
      token: other.token,
      body: { message: 'intrusion', conversationId, resourceId: resource.id, threadId },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Conversation not found', threadId: '', messages: [] });
    const legacy = await call(postLegacy as Handler, {
      method: 'POST',
      token: other.token,
      body: { message: 'intrusion', conversationId, resourceId: resource.id },
    });
    expect(legacy.status).toBe(404);
    const thread = await call(getThread as Handler, { token: owner.token, query: { threadId, conversationId } });
    expect(thread.body.messages).toHaveLength(2);
  });

  test('the conversation does not appear in their listing', async () => {
    const res = await call(listConversations as Handler, { token: other.token });
    expect(res.body.conversations.map((c: { id: string }) => c.id)).not.toContain(conversationId);
  });
});

describe('a super_admin', () => {
  test.each(reads().map(([name]) => name))('can read %s', async (name) => {
    const superAdmin = await makeUser('super_admin');
    const read = reads().find(([n]) => n === name)![1];
    const res = await read(superAdmin.token);
    expect(res.status).toBe(200);
  });

  test("cannot post into someone else's conversation (403), which stays unchanged", async () => {
    const superAdmin = await makeUser('super_admin');
    const res = await call(postThread as Handler, {
      method: 'POST',
      token: superAdmin.token,
      body: { message: 'hello', conversationId, resourceId: resource.id, threadId },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: "Only the conversation's owner can post messages into it", threadId: '', messages: [] });
    const usage = await call(usageCurrent as Handler, { token: owner.token, query: { conversationId } });
    expect(usage.body.mtd.requests).toBe(2);
  });
});
