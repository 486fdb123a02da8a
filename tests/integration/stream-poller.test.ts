/**
 * The local stand-in for Lambda's stream event source mapping (local/stream-poller.ts) on this file's
 * table and its real DynamoDB Local stream: batches fill within the batching window, as Lambda's do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoLocalCredentials } from '../../core/dynamo-local';
import { localDynamoClient } from '../../local/runtime';
import { StreamReader, startStreamPoller } from '../../local/stream-poller';
import { TABLE, db } from '../../tables/client';

const dynamo = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
afterAll(() => dynamo.destroy());

/** A continuous poller that records the batches it delivers; `mark` ignores records written before the test. */
function capture(settings: { batchSize: number; batchingWindowMs: number }, mark: string) {
  const batches: number[] = [];
  const poller = startStreamPoller({
    dynamo,
    endpoint: process.env.DYNAMODB_ENDPOINT as string,
    table: TABLE,
    intervalMs: 50,
    settings: { ...settings, maximumRetryAttempts: 0, filterPatterns: [{ dynamodb: { NewImage: { mark: { S: [mark] } } } }] },
    handler: async (event) => {
      batches.push(event.Records.length);
    },
  });
  const total = () => batches.reduce((a, b) => a + b, 0);
  return {
    batches,
    async until(n: number) {
      for (let i = 0; i < 200 && total() < n; i++) await new Promise((r) => setTimeout(r, 50));
      await poller.stop();
      return batches;
    },
  };
}

async function write(n: number, mark: string, gapMs: number) {
  for (let i = 0; i < n; i++) {
    await db.send(new PutCommand({ TableName: TABLE, Item: { PK: `POLLER#${mark}`, SK: String(i), mark } }));
    await new Promise((r) => setTimeout(r, gapMs));
  }
}

test("this file's table lives in a database of its own, which the service's client and the stream reader name too", async () => {
  // The run's DynamoDB Locals keep a database per access key (local/runtime.ts, `databasePerKey`).
  const key = process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID as string;
  expect(key).toMatch(/^it[0-9a-f]{32}$/);
  const other = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    // The default key's database, as a client given no DYNAMODB_LOCAL_ACCESS_KEY_ID names it.
    credentials: dynamoLocalCredentials({}),
  });
  try {
    expect((await other.send(new ListTablesCommand({}))).TableNames ?? []).not.toContain(TABLE);
    expect((await dynamo.send(new ListTablesCommand({}))).TableNames).toEqual([TABLE]);
  } finally {
    other.destroy();
  }
  // Written through the service's client, read back off the stream by the reader.
  await db.send(new PutCommand({ TableName: TABLE, Item: { PK: 'OWN-DB#1', SK: 'A', mark: 'own-db' } }));
  const seen: string[] = [];
  const reader = new StreamReader({
    dynamo,
    endpoint: process.env.DYNAMODB_ENDPOINT as string,
    table: TABLE,
    settings: {
      batchSize: 100,
      batchingWindowMs: 0,
      maximumRetryAttempts: 0,
      filterPatterns: [{ dynamodb: { NewImage: { mark: { S: ['own-db'] } } } }],
    },
    handler: async (event) => {
      for (const r of event.Records) seen.push(r.dynamodb?.Keys?.PK?.S ?? '');
    },
  });
  try {
    while ((await reader.poll()) > 0);
  } finally {
    reader.close();
  }
  expect(seen).toEqual(['OWN-DB#1']);
});

test('records arriving within the batching window are delivered as one batch, not one batch per read', async () => {
  const mark = 'window';
  const run = capture({ batchSize: 500, batchingWindowMs: 1500 }, mark);
  await write(10, mark, 30);
  // Shards are DynamoDB Local's to cut: a rollover in the middle of the writes may split the batch once.
  expect((await run.until(10)).length).toBeLessThanOrEqual(2);
});

test('a full batch is delivered without waiting for the window', async () => {
  const mark = 'full';
  const run = capture({ batchSize: 4, batchingWindowMs: 60_000 }, mark);
  const started = Date.now();
  await write(8, mark, 0);
  expect(await run.until(8)).toEqual([4, 4]);
  expect(Date.now() - started).toBeLessThan(30_000);
});

test('a poller stopped while a batch keeps failing leaves it for the next start: neither retried on nor skipped', async () => {
  const mark = 'stopping';
  const dir = mkdtempSync(join(tmpdir(), 'poller-'));
  const checkpointFile = join(dir, 'checkpoint.json');
  const settings = {
    batchSize: 100,
    batchingWindowMs: 0,
    maximumRetryAttempts: 9,
    filterPatterns: [{ dynamodb: { NewImage: { mark: { S: [mark] } } } }],
  };
  const source = { dynamo, endpoint: process.env.DYNAMODB_ENDPOINT as string, table: TABLE, intervalMs: 50, settings, checkpointFile };
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    let attempts = 0;
    // A receiver that is down: the batch is retried (up to nine times over some ten seconds) until the stop.
    const first = startStreamPoller({
      ...source,
      handler: async () => {
        attempts += 1;
        throw new Error('the receiver is down');
      },
    });
    await write(2, mark, 0);
    for (let i = 0; i < 200 && attempts < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const stopping = Date.now();
    await first.stop();
    expect(Date.now() - stopping).toBeLessThan(5_000);
    expect(errors).not.toHaveBeenCalled();

    // The next start, from the same checkpoint: the batch is delivered, whole.
    const seen: string[] = [];
    const second = startStreamPoller({
      ...source,
      handler: async (event) => {
        for (const r of event.Records) seen.push(String(r.dynamodb?.NewImage?.SK?.S));
      },
    });
    for (let i = 0; i < 200 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await second.stop();
    expect(seen).toEqual(['0', '1']);
  } finally {
    errors.mockRestore();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A reader of this file's table whose GetRecords answers `failures` in turn before it works again:
 * what AWS documents for an iterator unused for 15 minutes (ExpiredIteratorException) and for one
 * pointing past the trim horizon (TrimmedDataAccessException), which DynamoDB Local cannot be made to
 * show on demand (it answers Trimmed now and then under load). Injected at the real client's
 * middleware, so every other request is DynamoDB Local's.
 */
function failingReader(failures: string[], seen: string[], mark: string) {
  const reader = new StreamReader({
    dynamo,
    endpoint: process.env.DYNAMODB_ENDPOINT as string,
    table: TABLE,
    settings: { batchSize: 100, batchingWindowMs: 0, maximumRetryAttempts: 0, filterPatterns: [{ dynamodb: { NewImage: { mark: { S: [mark] } } } }] },
    handler: async (event) => {
      for (const r of event.Records) seen.push(String(r.dynamodb?.NewImage?.SK?.S));
    },
    onGiveUp: 'throw',
  });
  const left = [...failures];
  const streams = (reader as unknown as { streams: DynamoDBStreamsClient }).streams;
  streams.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetRecordsCommand' && armed && left.length > 0) {
        const name = left.shift() as string;
        throw Object.assign(new Error(`${name} (injected)`), { name, $metadata: { httpStatusCode: 400 } });
      }
      return next(args);
    },
    { step: 'initialize', name: 'inject-stream-failures' },
  );
  let armed = false;
  return { reader, arm: () => (armed = true) };
}

test('an expired shard iterator is renewed after the last record delivered: nothing lost, nothing twice', async () => {
  const mark = 'expired';
  const seen: string[] = [];
  const { reader, arm } = failingReader(['ExpiredIteratorException'], seen, mark);
  try {
    await write(3, mark, 0);
    while ((await reader.poll()) > 0);
    expect(seen).toEqual(['0', '1', '2']);
    arm();
    for (let i = 3; i < 6; i++) await db.send(new PutCommand({ TableName: TABLE, Item: { PK: `POLLER#${mark}`, SK: String(i), mark } }));
    while ((await reader.poll()) > 0);
    expect(seen).toEqual(['0', '1', '2', '3', '4', '5']);
  } finally {
    reader.close();
  }
});

test('an iterator past the trim horizon is renewed, at the horizon when the last record delivered is trimmed too', async () => {
  const mark = 'trimmed';
  const seen: string[] = [];
  const { reader, arm } = failingReader(['TrimmedDataAccessException', 'TrimmedDataAccessException'], seen, mark);
  try {
    const put = (sk: string) => db.send(new PutCommand({ TableName: TABLE, Item: { PK: `POLLER#${mark}`, SK: sk, mark } }));
    await put('a0');
    await put('a1');
    while ((await reader.poll()) > 0);
    expect(seen).toEqual(['a0', 'a1']);
    arm();
    await put('b0');
    await put('b1');
    while ((await reader.poll()) > 0);
    // Renewed at the horizon (the start of the shard): what was delivered before comes again (the
    // aggregator's markers make that harmless), and what was written since comes once, in order.
    const after = seen.slice(2);
    expect(after.filter((sk) => sk.startsWith('b'))).toEqual(['b0', 'b1']);
    // (Both, unless DynamoDB Local cut a new shard between them and the b's: then the horizon is past them.)
    expect([[], ['a0', 'a1']]).toContainEqual(after.filter((sk) => sk.startsWith('a')));
  } finally {
    reader.close();
  }
});
