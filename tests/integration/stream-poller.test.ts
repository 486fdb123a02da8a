/**
 * The local stand-in for Lambda's stream event source mapping (local/stream-poller.ts) on this file's
 * table and its real DynamoDB Local stream: batches fill within the batching window, as Lambda's do.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { localDynamoClient } from '../../local/runtime';
import { startStreamPoller } from '../../local/stream-poller';
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
