/**
 * Read-your-writes of the conversation-wide listing (GET /api/conversations/{id}/messages): a turn's
 * index entry is written in the turn's own transaction, so the listing never waits for the stream
 * aggregator, and a failing aggregator hides nothing. The stream is deliberately never aggregated here
 * (no drainStream, tests/helpers/stream.ts).
 */
import { jest } from '@jest/globals';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { localDynamoClient } from '../../local/runtime';
import { StreamReader, aggregatorEventSource } from '../../local/stream-poller';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { managedResource, newConversation, ok, withModelFault } from './chat-fixtures';

jest.setTimeout(60_000);

type Listed = { role: string; content: string; status?: string }[];

async function chatInOneConversation() {
  const { token } = await makeUser('user');
  const resource = await managedResource();
  const conversationId = await newConversation(token, resource);
  const list = async () => {
    const res = await call(conversationMessages as Handler, { token, pathParameters: { id: conversationId }, query: { limit: '100' } });
    expect(res.status).toBe(200);
    return (res.body.messages as Listed).map((m) => `${m.role}:${m.status ?? 'ok'}:${m.content.split('"')[1] ?? m.content}`);
  };
  const thread = (message: string, threadId?: string) =>
    call(postThread as Handler, {
      method: 'POST',
      token,
      body: { message, conversationId, resourceId: resource.id, ...(threadId ? { threadId } : {}) },
    });
  const legacy = (message: string) =>
    call(postLegacy as Handler, { method: 'POST', token, body: { message, conversationId, resourceId: resource.id } });
  return { resource, list, thread, legacy };
}

test("a caller's answered turn is listed in the conversation-wide listing on their very next request, without the stream aggregator", async () => {
  const { list, thread, legacy } = await chatInOneConversation();

  const first = await ok(thread('first'));
  expect(await list()).toEqual(['user:ok:first', 'assistant:ok:first']);

  await ok(thread('second', first.body.threadId));
  expect(await list()).toEqual(['user:ok:first', 'assistant:ok:first', 'user:ok:second', 'assistant:ok:second']);

  await ok(legacy('third'));
  expect((await list()).slice(-2)).toEqual(['user:ok:third', 'assistant:ok:third']);
});

test('a turn whose model call failed is listed at once with its user message marked failed, without the stream aggregator', async () => {
  const { resource, list, thread } = await chatInOneConversation();
  const failed = await withModelFault(resource, () => thread('unanswered'));
  expect(failed.status).toBe(500);
  expect(await list()).toEqual(['user:failed:unanswered']);
});

test('every stored message is listed while every stream batch fails and goes to the failure queue', async () => {
  const { list, thread, legacy } = await chatInOneConversation();
  const first = await ok(thread('one'));
  await ok(thread('two', first.body.threadId));
  await ok(legacy('three'));

  // The aggregator's function failing every delivery (a broken deploy, a timeout): the event source
  // mapping retries the batch, then hands its range to the failure queue. Nothing of it is applied.
  const dynamo = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
  let delivered = 0;
  const failing = new StreamReader({
    dynamo,
    endpoint: process.env.DYNAMODB_ENDPOINT as string,
    table: process.env.TABLE_NAME as string,
    handler: async (event) => {
      delivered += event.Records.length;
      throw new Error('Task timed out after 30.00 seconds');
    },
    settings: { ...aggregatorEventSource(), maximumRetryAttempts: 1 },
    onGiveUp: 'throw',
  });
  const drain = async () => {
    while ((await failing.poll()) > 0);
  };
  try {
    await expect(drain()).rejects.toThrow('Task timed out');
  } finally {
    failing.close();
    dynamo.destroy();
  }
  expect(delivered).toBeGreaterThan(0);

  expect(await list()).toEqual(['user:ok:one', 'assistant:ok:one', 'user:ok:two', 'assistant:ok:two', 'user:ok:three', 'assistant:ok:three']);
});
