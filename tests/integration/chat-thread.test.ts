import { jest } from '@jest/globals';
import { nanosOf } from '../../core/money';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as getThread } from '../../functions/chat/thread-get';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { handler as usageCurrent } from '../../functions/usage/current';
import { TABLE, db } from '../../tables/client';
import { resourceKey, type Resource } from '../../tables/resources';
import { getModelUsageTotals } from '../../tables/usage';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import {
  HOSTED_MODEL,
  MANAGED_MODEL,
  dedicatedResource,
  hostedResource,
  managedResource,
  newConversation,
  putResource,
  withModelFault,
} from './chat-fixtures';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

const post = (token: string | undefined, body: unknown) => call(postThread as Handler, { method: 'POST', path: '/api/chat/thread', token, body });
const read = (token: string, query: Record<string, string>) => call(getThread as Handler, { path: '/api/chat/thread', token, query });
const usage = (token: string, conversationId: string) => call(usageCurrent as Handler, { token, query: { conversationId } });

const threadError = (error: string, extra: Record<string, unknown> = {}) => ({ success: false, error, threadId: '', messages: [], ...extra });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function resourceItem(id: string) {
  return (await db.send(new GetCommand({ TableName: TABLE, Key: resourceKey(id) }))).Item;
}

describe.each([
  ['managed', () => managedResource(), MANAGED_MODEL],
  ['hosted', () => hostedResource(), HOSTED_MODEL],
  ['dedicated', () => dedicatedResource(), undefined],
] as const)('a full conversation on a %s resource', (platform, makeResource, expectedModel) => {
  let owner: Awaited<ReturnType<typeof makeUser>>;
  let resource: Resource;
  let conversationId: string;
  let threadId: string;
  const replies: any[] = [];

  beforeAll(async () => {
    owner = await makeUser('user');
    resource = await makeResource();
    conversationId = await newConversation(owner.token, resource);
  });

  test('the first message without threadId starts a thread and returns the user message and the reply with the fields of 2.4', async () => {
    const res = await post(owner.token, { message: 'My name is Ada.', conversationId, resourceId: resource.id });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.threadId).toMatch(UUID);
    threadId = res.body.threadId;
    const [user, assistant] = res.body.messages;
    expect(res.body.messages).toHaveLength(2);
    expect(user).toEqual({
      role: 'user',
      content: 'My name is Ada.',
      timestamp: expect.stringMatching(ISO),
      metadata: { username: owner.user.username, resource_id: resource.id },
    });
    expect(assistant).toEqual({
      role: 'assistant',
      content: expect.stringContaining('You said: "My name is Ada."'),
      timestamp: expect.stringMatching(ISO),
      metadata: {
        model_id: expect.any(String),
        model_response_time: expect.any(Number),
        tokens_used: assistant.tokens_total,
        username: owner.user.username,
      },
      tokens_in: expect.any(Number),
      tokens_out: expect.any(Number),
      tokens_total: assistant.tokens_in + assistant.tokens_out,
      latency_ms: expect.any(Number),
      model_id: assistant.metadata.model_id,
      cost_usd: expect.any(Number),
    });
    expect(Number.isInteger(assistant.tokens_in) && assistant.tokens_in > 0).toBe(true);
    expect(Number.isInteger(assistant.tokens_out) && assistant.tokens_out > 0).toBe(true);
    expect(assistant.metadata.model_response_time).toBeCloseTo(assistant.latency_ms / 1000, 6);
    if (expectedModel) expect(assistant.model_id).toBe(expectedModel);
    // The first turn has no context: the model got the system prompt and one message.
    expect(assistant.content).toContain('Context: 1 messages received; earlier user messages: []; system: yes');
    replies.push(assistant);
  });

  test('later turns carry the earlier turns as context, so the third reply lists the first two user messages', async () => {
    const second = await post(owner.token, { message: 'I like chess.', conversationId, resourceId: resource.id, threadId });
    expect(second.status).toBe(200);
    expect(second.body.threadId).toBe(threadId);
    const third = await post(owner.token, { message: 'What do you know about me?', conversationId, resourceId: resource.id, threadId });
    expect(third.status).toBe(200);
    const reply = third.body.messages[1].content as string;
    expect(reply).toContain('Context: 5 messages received');
    expect(reply).toContain('earlier user messages: [My name is Ada. | I like chess.]');
    replies.push(second.body.messages[1], third.body.messages[1]);
  });

  test('reading the thread returns its six messages in order, each turn user then assistant', async () => {
    const res = await read(owner.token, { threadId, conversationId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, threadId });
    const messages = res.body.messages as any[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'My name is Ada.',
      'I like chess.',
      'What do you know about me?',
    ]);
    for (const m of messages) expect(m.timestamp).toMatch(ISO);
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(replies.map((r) => r.content));
  });

  test('usage of the conversation counts the three turns with their tokens', async () => {
    const res = await usage(owner.token, conversationId);
    expect(res.status).toBe(200);
    const tokensIn = replies.reduce((n, r) => n + r.tokens_in, 0);
    const tokensOut = replies.reduce((n, r) => n + r.tokens_out, 0);
    for (const period of ['mtd', 'last24h']) {
      expect(res.body[period]).toMatchObject({ requests: 3, tokens_in: tokensIn, tokens_out: tokensOut, tokens_total: tokensIn + tokensOut });
      if (platform === 'dedicated') expect(res.body[period].cost_usd).toBe(0);
      else expect(res.body[period].cost_usd).toBeGreaterThan(0);
      // Each reply carries the charge the usage sums (the console shows it instead of recomputing it).
      expect(replies.reduce((n, r) => n + nanosOf(r.cost_usd), 0)).toBe(nanosOf(res.body[period].cost_usd));
    }
  });

  test('the model totals (model-info usage) count the turns with their tokens and cost once the stream is drained', async () => {
    await drainStream();
    const totals = await getModelUsageTotals(resource.type, resource.model_id);
    const tokensIn = replies.reduce((n, r) => n + r.tokens_in, 0);
    // The managed and hosted models are shared with other tests of this file; the dedicated one is not.
    if (platform === 'dedicated') {
      expect(totals).toEqual({ invocations: 3, tokens_in: tokensIn, tokens_out: replies.reduce((n, r) => n + r.tokens_out, 0), cost_usd: 0 });
    } else {
      expect(totals.invocations).toBeGreaterThanOrEqual(3);
      expect(totals.tokens_in).toBeGreaterThanOrEqual(tokensIn);
      expect(totals.cost_usd).toBeGreaterThan(0);
    }
  });

  test("the resource's chat counters count the turns and last_chat_at is the last reply's time once the stream is drained", async () => {
    await drainStream();
    const item = await resourceItem(resource.id);
    expect(item?.chat_count).toBe(3);
    expect(item?.chat_latency_ms_total).toBe(replies.reduce((n, r) => n + r.latency_ms, 0));
    expect(item?.last_chat_at).toBe(replies.at(-1).timestamp);
  });
});

describe('POST /api/chat/thread errors (spec 4.5, exact bodies)', () => {
  let owner: Awaited<ReturnType<typeof makeUser>>;
  let resource: Resource;
  let conversationId: string;

  beforeAll(async () => {
    owner = await makeUser('user');
    resource = await managedResource();
    conversationId = await newConversation(owner.token, resource);
  });

  test.each(['message', 'conversationId', 'resourceId'])('a missing %s is 400', async (field) => {
    const body: Record<string, unknown> = { message: 'hi', conversationId, resourceId: resource.id };
    delete body[field];
    const res = await post(owner.token, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(threadError(`Missing required field '${field}'`, { details: 'Invalid request body' }));
  });

  test('an empty or blank message is 400 naming the field', async () => {
    for (const message of ['', '   ', '\n\t\u00a0']) {
      const res = await post(owner.token, { message, conversationId, resourceId: resource.id });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, threadId: '', messages: [] });
      expect(res.body.error).toMatch(/^Invalid field 'message': .*not only white space/);
    }
  });

  test('a message over 32,000 characters is 400 and one of exactly 32,000 is accepted', async () => {
    const tooLong = await post(owner.token, { message: 'x'.repeat(32_001), conversationId, resourceId: resource.id });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ success: false, threadId: '', messages: [] });
    expect(tooLong.body.error).toContain("'message'");
    const longest = await post(owner.token, { message: 'x'.repeat(32_000), conversationId, resourceId: resource.id });
    expect(longest.status).toBe(200);
  });

  test('an unknown resource is 404', async () => {
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: randomUUID() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(threadError('Resource not found'));
  });

  test('an unknown conversation is 404', async () => {
    const res = await post(owner.token, { message: 'hi', conversationId: randomUUID(), resourceId: resource.id });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(threadError('Conversation not found'));
  });

  test('an unknown thread is 404', async () => {
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: resource.id, threadId: randomUUID() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(threadError('Thread not found'));
  });

  test("a thread of another of the caller's conversations is 404: the thread must belong to the conversation", async () => {
    const other = await newConversation(owner.token, resource);
    const started = await post(owner.token, { message: 'hi', conversationId: other, resourceId: resource.id });
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: resource.id, threadId: started.body.threadId });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(threadError('Thread not found'));
    const get = await read(owner.token, { conversationId, threadId: started.body.threadId });
    expect(get.status).toBe(404);
    expect(get.body).toEqual(threadError('Thread not found'));
  });

  test('a key-like id is 400 naming the field', async () => {
    const res = await post(owner.token, { message: 'hi', conversationId: 'CONV#x', resourceId: resource.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("Invalid field 'conversationId'");
    expect(res.body).toMatchObject({ threadId: '', messages: [] });
  });

  test('no token is 401 with the thread error shape', async () => {
    const res = await post(undefined, { message: 'hi', conversationId, resourceId: resource.id });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(threadError('Authentication required', { details: 'No token provided' }));
  });

  test('GET without threadId or conversationId is 400 with the thread error shape', async () => {
    const noThread = await read(owner.token, { conversationId });
    expect(noThread.status).toBe(400);
    expect(noThread.body).toEqual(threadError("Missing required field 'threadId'", { details: 'Invalid query parameter' }));
    const noConversation = await read(owner.token, { threadId: randomUUID() });
    expect(noConversation.body).toEqual(threadError("Missing required field 'conversationId'", { details: 'Invalid query parameter' }));
  });
});

describe('a failing model call', () => {
  test('is 500 with the thread error shape, keeps the user message marked failed, and counts no usage', async () => {
    const owner = await makeUser('user');
    const resource = await managedResource('cohere.command-r-v1:0');
    const conversationId = await newConversation(owner.token, resource);
    const first = await post(owner.token, { message: 'Remember: blue.', conversationId, resourceId: resource.id });
    expect(first.status).toBe(200);
    const threadId = first.body.threadId;

    const failed = await withModelFault(resource, () =>
      post(owner.token, { message: 'Please keep this text.', conversationId, resourceId: resource.id, threadId }),
    );
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      success: false,
      error: 'The managed platform failed (status 500)',
      details: expect.any(String),
      threadId: '',
      messages: [],
    });

    const thread = await read(owner.token, { threadId, conversationId });
    expect(thread.body.messages.map((m: any) => [m.role, m.content, m.status])).toEqual([
      ['user', 'Remember: blue.', undefined],
      ['assistant', expect.any(String), undefined],
      ['user', 'Please keep this text.', 'failed'],
    ]);
    const counted = await usage(owner.token, conversationId);
    expect(counted.body.mtd.requests).toBe(1);
    expect(counted.body.last24h.requests).toBe(1);
    expect(counted.body.mtd.tokens_total).toBe(first.body.messages[1].tokens_total);

    // The failed message is not sent as context: the next turn sees one earlier (answered) message.
    const next = await post(owner.token, { message: 'And now?', conversationId, resourceId: resource.id, threadId });
    expect(next.status).toBe(200);
    expect(next.body.messages[1].content).toContain('earlier user messages: [Remember: blue.]');
  });

  test('that starts a thread still keeps the message, visible in the conversation listing', async () => {
    const owner = await makeUser('user');
    const resource = await dedicatedResource();
    const conversationId = await newConversation(owner.token, resource);
    const failed = await withModelFault(resource, () => post(owner.token, { message: 'Lost?', conversationId, resourceId: resource.id }));
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ success: false, error: expect.stringContaining('The dedicated platform'), threadId: '', messages: [] });
    await drainStream();
    const listed = await call(conversationMessages as Handler, { token: owner.token, pathParameters: { id: conversationId } });
    expect(listed.body.messages).toEqual([expect.objectContaining({ role: 'user', content: 'Lost?', status: 'failed', source: 'thread' })]);
    expect((await usage(owner.token, conversationId)).body.mtd.requests).toBe(0);
    expect((await resourceItem(resource.id))?.chat_count).toBeUndefined();
  });
});

describe('a dedicated resource that is not InService', () => {
  test('is a clear 409 naming the live status, checked on the platform, without calling the model', async () => {
    const owner = await makeUser('user');
    const resource = await dedicatedResource({ status: 'Creating' }, { failCreate: true });
    const conversationId = await newConversation(owner.token, resource);
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: resource.id });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(
      threadError(`Resource '${resource.name}' is not InService (status: Failed)`, {
        details: 'Chat is possible once the resource is InService again; poll its status endpoint',
      }),
    );
    await drainStream();
    const listed = await call(conversationMessages as Handler, { token: owner.token, pathParameters: { id: conversationId } });
    expect(listed.body.messages).toEqual([]);
  });

  test('whose stored status is stale while the platform says InService is chatted with', async () => {
    const owner = await makeUser('user');
    const live = await dedicatedResource({ status: 'Creating' });
    const conversationId = await newConversation(owner.token, live);
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: live.id });
    expect(res.status).toBe(200);
  });

  test('stored as InService but Failed on the platform is a 409 after the failed call, and the message is kept', async () => {
    const owner = await makeUser('user');
    const resource = await dedicatedResource({ status: 'InService' }, { failCreate: true });
    const conversationId = await newConversation(owner.token, resource);
    const res = await post(owner.token, { message: 'keep me', conversationId, resourceId: resource.id });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      success: false,
      error: `Resource '${resource.name}' is not InService (status: Failed)`,
      threadId: '',
      messages: [],
    });
    await drainStream();
    const listed = await call(conversationMessages as Handler, { token: owner.token, pathParameters: { id: conversationId } });
    expect(listed.body.messages).toEqual([expect.objectContaining({ content: 'keep me', status: 'failed' })]);
  });

  test('whose endpoint no longer exists on the platform is a 404', async () => {
    const owner = await makeUser('user');
    const resource = await putResource({ type: 'dedicated', status: 'Updating', endpoint_name: `gone-${randomUUID().slice(0, 8)}` });
    const conversationId = await newConversation(owner.token, resource);
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: resource.id });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(threadError('Resource not found on the platform', { details: expect.stringContaining(resource.endpoint_name) }));
  });
});

describe('a managed resource whose stored status is not InService', () => {
  test('is a 409', async () => {
    const owner = await makeUser('user');
    const resource = await putResource({ type: 'managed', model_id: MANAGED_MODEL, status: 'Deleting' });
    const conversationId = await newConversation(owner.token, resource);
    const res = await post(owner.token, { message: 'hi', conversationId, resourceId: resource.id });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(threadError(`Resource '${resource.name}' is not InService (status: Deleting)`));
  });
});
