/**
 * drainStream(): runs the stream aggregator over everything the test's table has written so far, in
 * this process, as Lambda would (local/stream-poller.ts builds the same events from DynamoDB Local's
 * Streams API), and returns once it is caught up. Tests call it where they need the shared aggregates
 * (service-wide usage, model totals, resource counters, conversation listings): no sleeps, no polling.
 * Each table keeps its stream positions across calls, so every record is delivered once; a batch the
 * aggregator fails is thrown, not retried, so a test sees the failure.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { handler } from '../../functions/usage/aggregate';
import { localDynamoClient } from '../../local/runtime';
import { StreamReader, aggregatorEventSource } from '../../local/stream-poller';

const readers = new Map<string, { reader: StreamReader; dynamo: DynamoDBClient }>();

export async function drainStream(table = process.env.TABLE_NAME as string): Promise<number> {
  let entry = readers.get(table);
  if (!entry) {
    const endpoint = process.env.DYNAMODB_ENDPOINT as string;
    const dynamo = localDynamoClient(endpoint);
    const settings = { ...aggregatorEventSource(), maximumRetryAttempts: 0 };
    entry = { reader: new StreamReader({ dynamo, endpoint, table, handler, settings, onGiveUp: 'throw' }), dynamo };
    readers.set(table, entry);
  }
  let total = 0;
  for (let read = await entry.reader.poll(); read > 0; read = await entry.reader.poll()) total += read;
  return total;
}

afterAll(() => {
  for (const { reader, dynamo } of readers.values()) {
    reader.close();
    dynamo.destroy();
  }
  readers.clear();
});
