/**
 * The stream aggregator (lib/usage/aggregator.ts, functions/usage/aggregate.ts) against this file's
 * table and its real DynamoDB Local stream. The stream is read by a StreamReader that only captures
 * the records, so each test decides how they are delivered to the handler: once, twice (Lambda's
 * retry after a failure), or as a longer batch.
 */
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler as aggregate } from '../../functions/usage/aggregate';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { aggregateStreamEvent } from '../../lib/usage/aggregator';
import { localDynamoClient } from '../../local/runtime';
import { StreamReader, aggregatorEventSource } from '../../local/stream-poller';
import { TABLE, db } from '../../tables/client';
import { resourceKey, removeResource, type Resource } from '../../tables/resources';
import { pendingCallsOf, putPendingCall } from '../../tables/calls';
import { turnItem } from '../../tables/messages';
import { getModelUsageTotals, readUsage } from '../../tables/usage';
import { call, lambdaContext, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { MANAGED_MODEL, dedicatedResource, managedResource, newConversation, ok } from './chat-fixtures';

jest.setTimeout(60_000);

const dynamo = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
const captured: DynamoDBRecord[] = [];
const reader = new StreamReader({
  dynamo,
  endpoint: process.env.DYNAMODB_ENDPOINT as string,
  table: process.env.TABLE_NAME as string,
  handler: async (event) => {
    captured.push(...event.Records);
  },
  settings: { ...aggregatorEventSource(), maximumRetryAttempts: 0 },
  onGiveUp: 'throw',
});

afterAll(() => {
  reader.close();
  dynamo.destroy();
});

/** The stream records written since the last call (as the event source mapping filters them), not yet aggregated. */
async function newRecords(): Promise<DynamoDBRecord[]> {
  captured.length = 0;
  while ((await reader.poll()) > 0);
  return [...captured];
}

const deliver = (records: DynamoDBRecord[]) => aggregate({ Records: records }, lambdaContext());
const isTurn = (r: DynamoDBRecord) => r.dynamodb?.NewImage?.entity?.S === 'turn';

async function turns(owner: Awaited<ReturnType<typeof makeUser>>, resource: Resource, n: number) {
  const conversationId = await newConversation(owner.token, resource);
  const replies = [];
  let threadId: string | undefined;
  for (let i = 0; i < n; i++) {
    const res = await ok(
      call(postThread as Handler, {
        method: 'POST',
        token: owner.token,
        body: { message: `turn ${i}`, conversationId, resourceId: resource.id, threadId },
      }),
    );
    threadId = res.body.threadId;
    replies.push(res.body.messages[1]);
  }
  return { conversationId, replies };
}

async function resourceItem(id: string) {
  return (await db.send(new GetCommand({ TableName: TABLE, Key: resourceKey(id), ConsistentRead: true }))).Item;
}

const all = () => readUsage({ kind: 'all' }, new Date());

test("a chat turn writes nothing every user shares: the service-wide usage, the model's totals and the resource's counters change only when the stream is aggregated", async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await dedicatedResource();
  const before = { all: await all(), model: await getModelUsageTotals('dedicated', resource.model_id) };

  const { conversationId, replies } = await turns(owner, resource, 3);
  expect((await all()).mtd).toEqual(before.all.mtd);
  expect(await getModelUsageTotals('dedicated', resource.model_id)).toEqual(before.model);
  expect((await resourceItem(resource.id))?.chat_count).toBeUndefined();
  // The caller's and the conversation's figures are exact at once.
  expect((await readUsage({ kind: 'conversation', id: conversationId }, new Date())).mtd.requests).toBe(3);
  expect((await readUsage({ kind: 'user', id: owner.user.id }, new Date())).mtd.requests).toBe(3);

  await deliver(await newRecords());
  const tokens = replies.reduce((n, r) => n + r.tokens_total, 0);
  expect((await all()).mtd.requests).toBe(before.all.mtd.requests + 3);
  expect((await all()).mtd.tokens_total).toBe(before.all.mtd.tokens_total + tokens);
  expect((await getModelUsageTotals('dedicated', resource.model_id)).invocations).toBe(3);
  expect(await resourceItem(resource.id)).toMatchObject({
    chat_count: 3,
    chat_latency_ms_total: replies.reduce((n, r) => n + r.latency_ms, 0),
    last_chat_at: replies[2].timestamp,
  });
});

test('a batch delivered twice, as Lambda retries one after a failure, is counted once', async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await managedResource();
  await turns(owner, resource, 4);
  const records = await newRecords();
  const before = { all: await all(), model: await getModelUsageTotals('managed', MANAGED_MODEL) };

  await deliver(records);
  const once = { all: await all(), model: await getModelUsageTotals('managed', MANAGED_MODEL), resource: await resourceItem(resource.id) };
  await deliver(records);

  expect(once.all.mtd.requests).toBe(before.all.mtd.requests + 4);
  expect(once.model.invocations).toBe(before.model.invocations + 4);
  expect(await all()).toEqual(once.all);
  expect(await getModelUsageTotals('managed', MANAGED_MODEL)).toEqual(once.model);
  expect(await resourceItem(resource.id)).toEqual(once.resource);
});

test('a redelivery that runs past the first delivery counts only the records after it', async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await dedicatedResource();
  await turns(owner, resource, 5);
  const records = await newRecords();
  const turnRecords = records.filter(isTurn);
  expect(turnRecords).toHaveLength(5);

  await deliver(records.slice(0, records.indexOf(turnRecords[2] as DynamoDBRecord) + 1));
  expect((await resourceItem(resource.id))?.chat_count).toBe(3);
  await deliver(records);
  expect((await resourceItem(resource.id))?.chat_count).toBe(5);
  expect((await getModelUsageTotals('dedicated', resource.model_id)).invocations).toBe(5);
});

test('a record that cannot be read is skipped and the rest of its batch is counted', async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await dedicatedResource();
  await turns(owner, resource, 2);
  const records = await newRecords();
  const broken: DynamoDBRecord = {
    ...(records.find(isTurn) as DynamoDBRecord),
    eventID: 'broken-record',
    dynamodb: { NewImage: { entity: { S: 'turn' }, PK: { S: 'THREAD#x' }, SK: { S: 'not a turn key' } } },
  };

  await deliver([broken, ...records]);
  expect((await resourceItem(resource.id))?.chat_count).toBe(2);
});

test("a resource's last_chat_at never moves back when an older turn is aggregated after a newer one", async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await dedicatedResource();
  const { replies } = await turns(owner, resource, 2);
  const turnRecords = (await newRecords()).filter(isTurn);

  await deliver([turnRecords[1] as DynamoDBRecord]);
  await deliver([turnRecords[0] as DynamoDBRecord]);
  expect(await resourceItem(resource.id)).toMatchObject({ chat_count: 2, last_chat_at: replies[1].timestamp });
});

test('turns of a resource removed before they are aggregated still count service-wide and per model, and bring back no resource item', async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await dedicatedResource();
  await turns(owner, resource, 2);
  const records = await newRecords();
  await removeResource(resource);

  await deliver(records);
  expect(await resourceItem(resource.id)).toBeUndefined();
  expect((await getModelUsageTotals('dedicated', resource.model_id)).invocations).toBe(2);
});

test("a scope's first turn in a new hour folds that scope's day-old hours into its month, with the same figures", async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await dedicatedResource();
  const { conversationId } = await turns(owner, resource, 1);
  // An hour item from 30 hours ago, as a turn then would have left it.
  const old = new Date(Date.now() - 30 * 3_600_000);
  const scopeKey = { PK: `USAGE#CONV#${conversationId}` };
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: { PK: scopeKey.PK, SK: `H#${old.toISOString().slice(0, 13)}` },
      UpdateExpression: 'SET entity = :e, r00 = :r, i00 = :i',
      ExpressionAttributeValues: { ':e': 'usage-hour', ':r': 2, ':i': 7 },
    }),
  );
  const before = await readUsage({ kind: 'conversation', id: conversationId }, new Date());

  await deliver(await newRecords());
  const month = await db.send(
    new GetCommand({ TableName: TABLE, Key: { PK: scopeKey.PK, SK: `H#${old.toISOString().slice(0, 7)}` }, ConsistentRead: true }),
  );
  expect(month.Item).toMatchObject({ r: 2, i: 7, w: old.toISOString().slice(0, 13) });
  expect(await readUsage({ kind: 'conversation', id: conversationId }, new Date())).toEqual(before);
});

test('a gateway call is one pending write, counted for its scopes once settled from the stream (a redelivery changes nothing), service-wide once aggregated, and indexed nowhere', async () => {
  await deliver(await newRecords());
  const userId = randomUUID();
  const keyId = randomUUID();
  const resource = await dedicatedResource();
  const before = await all();
  const answeredAt = new Date();
  const scopes = [
    { kind: 'user' as const, id: userId },
    { kind: 'key' as const, id: keyId },
  ];
  const pending = {
    callId: randomUUID(),
    requestId: randomUUID(),
    userId,
    keyId,
    startedAt: new Date(answeredAt.getTime() - 7).toISOString(),
    answeredAt: answeredAt.toISOString(),
    resource: { id: resource.id, type: 'dedicated' as const },
    modelId: resource.model_id,
    usageModelId: resource.model_id,
    tokensIn: 11,
    tokensOut: 22,
    latencyMs: 7,
    cost: 0,
    scopes,
    settles: [],
  };
  await putPendingCall(pending);
  await putPendingCall(pending); // a retry after a lost answer: written once
  for (const scope of scopes) expect((await readUsage(scope, new Date())).mtd.requests).toBe(0);
  expect(await pendingCallsOf(userId)).toEqual([pending]);

  const settlement = await newRecords();
  expect(settlement.filter(isTurn)).toHaveLength(0);
  await deliver(settlement);
  await deliver(settlement); // Lambda's retry of the same batch: the pending item is gone, nothing counts twice
  for (const scope of scopes) expect((await readUsage(scope, new Date())).mtd).toMatchObject({ requests: 1, tokens_total: 33 });
  expect(await pendingCallsOf(userId)).toEqual([]);

  const records = await newRecords();
  expect(records.filter(isTurn)).toHaveLength(1);
  await deliver(records);
  expect((await all()).mtd.requests).toBe(before.mtd.requests + 1);
  expect(await resourceItem(resource.id)).toMatchObject({ chat_count: 1, chat_latency_ms_total: 7 });
});

test('a turn stored with its conversation index entry gets none from the aggregator; one stored without, as the version before wrote turns, is indexed', async () => {
  await deliver(await newRecords());
  const owner = await makeUser('user');
  const resource = await managedResource();
  const { conversationId } = await turns(owner, resource, 1);
  const startedAt = new Date().toISOString();
  const older = turnItem({
    source: 'legacy',
    conversationId,
    threadId: null,
    turnId: randomUUID(),
    startedAt,
    username: owner.user.username,
    resourceId: resource.id,
    userText: 'written by the version before',
  });
  await db.send(new PutCommand({ TableName: TABLE, Item: older }));

  const records = await newRecords();
  expect(records.filter(isTurn)).toHaveLength(2);
  const result = await aggregateStreamEvent({ Records: records });
  expect(result.indexed).toBe(1);
  const listed = await call(conversationMessages as Handler, { token: owner.token, pathParameters: { id: conversationId } });
  expect((listed.body.messages as { content: string }[]).map((m) => m.content).at(-1)).toBe('written by the version before');
  expect(listed.body.messages).toHaveLength(3);
});
