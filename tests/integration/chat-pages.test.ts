/**
 * Pages of chat messages over turn items (two messages each), failed turns (one message) and items
 * of the layout before (one item per message): thread, legacy and conversation-wide listings, with
 * page sizes that end a page inside a turn, and the backfill that indexes the old layout's turns.
 */
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { handler as getThread } from '../../functions/chat/thread-get';
import { handler as getLegacy } from '../../functions/chat/legacy-get';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { backfillConversationIndex } from '../../scripts/backfill-conversation-index';
import { TABLE, db } from '../../tables/client';
import { threadPut } from '../../tables/conversations';
import { legacyMessageItem, type StoredMessage } from '../../tables/messages';
import { transactWrite } from '../../tables/transactions';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { managedResource, newConversation, ok, withModelFault } from './chat-fixtures';

jest.setTimeout(60_000);

type Page = { messages: { role: string; content: string; status?: string; source?: string }[]; nextCursor: string | null };

/** Every message of a listing, read `limit` at a time, and how many pages it took. */
async function readAll(read: (query: Record<string, string>) => Promise<{ status: number; body: Page }>, limit: number) {
  const messages: Page['messages'] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await read({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    expect(res.body.messages.length).toBeLessThanOrEqual(limit);
    messages.push(...res.body.messages);
    cursor = res.body.nextCursor ?? undefined;
    pages++;
  } while (cursor && pages < 100);
  return { messages, pages };
}

const texts = (messages: Page['messages']) => messages.map((m) => `${m.role}:${m.content.split('"')[1] ?? m.content}`);

describe('a thread of five turns, one of them failed (nine messages)', () => {
  let token: string;
  let conversationId: string;
  let threadId: string;
  let expected: string[];

  beforeAll(async () => {
    const owner = await makeUser('user');
    token = owner.token;
    const resource = await managedResource('cohere.command-r-v1:0');
    conversationId = await newConversation(token, resource);
    const post = (message: string) =>
      call(postThread as Handler, {
        method: 'POST',
        token,
        body: { message, conversationId, resourceId: resource.id, ...(threadId ? { threadId } : {}) },
      });
    threadId = (await ok(post('one'))).body.threadId;
    await ok(post('two'));
    const failed = await withModelFault(resource, () => post('three'));
    expect(failed.status).toBe(500);
    await ok(post('four'));
    await ok(post('five'));
    expected = ['user:one', 'assistant:one', 'user:two', 'assistant:two', 'user:three', 'user:four', 'assistant:four', 'user:five', 'assistant:five'];
  });

  test.each([1, 2, 3, 4, 5, 9, 200])('pages of %i messages show every message once, in order', async (limit) => {
    const { messages, pages } = await readAll((query) => call(getThread as Handler, { token, query: { threadId, conversationId, ...query } }), limit);
    expect(texts(messages)).toEqual(expected);
    expect(messages.find((m) => m.content === 'three')?.status).toBe('failed');
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(9 / limit));
  });

  test.each([1, 3, 4, 100])('the conversation-wide listing in pages of %i shows the same messages', async (limit) => {
    const { messages } = await readAll(
      (query) => call(conversationMessages as Handler, { token, pathParameters: { id: conversationId }, query }),
      limit,
    );
    expect(texts(messages)).toEqual(expected);
    expect(messages.every((m) => m.source === 'thread')).toBe(true);
  });

  test('a cursor that claims to resume inside a turn with anything but 1 is 400', async () => {
    const forged = Buffer.from(JSON.stringify({ PK: `THREAD#${threadId}`, SK: 'MSG#x', m: '2' })).toString('base64url');
    const res = await call(getThread as Handler, { token, query: { threadId, conversationId, cursor: forged } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid cursor');
  });
});

test('legacy pages of three messages show every message once, in order', async () => {
  const { token } = await makeUser('user');
  const resource = await managedResource();
  const conversationId = await newConversation(token, resource);
  for (const message of ['a', 'b', 'c'])
    await ok(call(postLegacy as Handler, { method: 'POST', token, body: { message, conversationId, resourceId: resource.id } }));
  const { messages } = await readAll((query) => call(getLegacy as Handler, { token, query: { conversationId, ...query } }), 3);
  expect(texts(messages)).toEqual(['user:a', 'assistant:a', 'user:b', 'assistant:b', 'user:c', 'assistant:c']);
});

describe('messages stored in the layout before turn items (one item per message)', () => {
  test('read in their thread with the turns after them, and in the conversation listing once the backfill has indexed them, idempotently', async () => {
    const owner = await makeUser('user');
    const resource = await managedResource();
    const conversationId = await newConversation(owner.token, resource);
    const threadId = randomUUID();
    const base = Date.now() - 3_600_000;
    await transactWrite([threadPut({ conversationId, threadId, userId: owner.user.id, at: new Date(base).toISOString() })]);
    const old = (i: number, source: 'thread' | 'legacy', answered: boolean): StoredMessage[] => {
      const ts = new Date(base + i * 60_000).toISOString();
      const common = {
        source,
        conversation_id: conversationId,
        thread_id: source === 'thread' ? threadId : null,
        turn_id: randomUUID(),
        turn_ts: ts,
        timestamp: ts,
        user_id: owner.user.id,
        resource_id: resource.id,
        status: answered ? ('ok' as const) : ('failed' as const),
      };
      const user: StoredMessage = {
        ...common,
        seq: 0,
        role: 'user',
        content: `old ${i}`,
        metadata: { username: owner.user.username, resource_id: resource.id },
      };
      if (!answered) return [user];
      return [
        user,
        {
          ...common,
          seq: 1,
          role: 'assistant',
          content: `old answer ${i}`,
          metadata: {},
          tokens_in: 1,
          tokens_out: 1,
          tokens_total: 2,
          latency_ms: 1,
          model_id: 'm',
        },
      ];
    };
    const items = [...old(1, 'thread', true), ...old(2, 'legacy', true), ...old(3, 'thread', false)].map(legacyMessageItem);
    await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) } }));
    await ok(
      call(postThread as Handler, {
        method: 'POST',
        token: owner.token,
        body: { message: 'new', conversationId, resourceId: resource.id, threadId },
      }),
    );

    const thread = await readAll((query) => call(getThread as Handler, { token: owner.token, query: { threadId, conversationId, ...query } }), 3);
    expect(thread.messages.map((m) => m.content.split('"')[1] ?? m.content)).toEqual(['old 1', 'old answer 1', 'old 3', 'new', 'new']);

    const listing = (limit: number) =>
      readAll((query) => call(conversationMessages as Handler, { token: owner.token, pathParameters: { id: conversationId }, query }), limit);
    expect((await listing(100)).messages.map((m) => m.content.split('"')[1] ?? m.content)).toEqual(['new', 'new']);

    const first = await backfillConversationIndex();
    expect(first.entries).toBeGreaterThanOrEqual(3);
    await backfillConversationIndex();
    for (const limit of [1, 2, 5, 100]) {
      expect((await listing(limit)).messages.map((m) => [m.source, m.content.split('"')[1] ?? m.content])).toEqual([
        ['thread', 'old 1'],
        ['thread', 'old answer 1'],
        ['legacy', 'old 2'],
        ['legacy', 'old answer 2'],
        ['thread', 'old 3'],
        ['thread', 'new'],
        ['thread', 'new'],
      ]);
    }
  });
});
