import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  NumberValue,
  QueryCommand,
  type BatchGetCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { traced } from '#tracing';
import { config } from '../core/config';
import { nanosOf, usdText, type Nanos } from '../core/money';
import { logger } from '../core/observability';
import { DataError } from './errors';

/**
 * The one DynamoDB document client, built once per cold start.
 *
 * Timeouts are short and attempts bounded so that a database outage becomes a 503 within seconds
 * instead of a request that hangs until the Lambda times out. (A refused connection fails at once; the
 * 3 s connection timeout leaves room for a burst of new connections, which took over 1 s to be
 * accepted under 200 concurrent chat turns.)
 */
const base = traced(
  new DynamoDBClient({
    region: config.table.region,
    endpoint: config.table.endpoint,
    // DynamoDB Local accepts any credentials; in AWS the function's role is used.
    credentials: config.table.endpoint ? config.table.localCredentials : undefined,
    maxAttempts: 3,
    // throwOnRequestTimeout: without it the Node handler only warns and the request goes on waiting.
    requestHandler: {
      connectionTimeout: config.table.connectionTimeoutMs,
      requestTimeout: config.table.requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
  }),
);

const OUTAGE_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'InternalServerError',
  'ServiceUnavailable',
]);
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

function isDatabaseOutage(err: unknown): boolean {
  const e = err as { name?: string; code?: string; cause?: { code?: string }; $metadata?: { httpStatusCode?: number } };
  // After its retries the SDK wraps a network failure ("AWS SDK error wrapper for Error: connect
  // ECONNREFUSED") and drops its code; what remains is metadata without any HTTP status.
  const noResponse = e?.$metadata !== undefined && e.$metadata.httpStatusCode === undefined;
  return (
    noResponse ||
    OUTAGE_NAMES.has(e?.name ?? '') ||
    OUTAGE_CODES.has(e?.code ?? '') ||
    OUTAGE_CODES.has(e?.cause?.code ?? '') ||
    (e?.$metadata?.httpStatusCode ?? 0) >= 500
  );
}

// The SDK's logger middleware filters every request's input and output for sensitive fields, to hand
// them to a logger that is a no-op here (the client has none): a tenth of the client's CPU per call,
// for nothing. The service logs its own way (core/observability.ts).
base.middlewareStack.remove('loggerMiddleware');

// Outages are translated at the client, so no caller needs to know which errors mean "try later";
// the conditional-check and transaction errors that callers do handle pass through untouched.
base.middlewareStack.add(
  (next) => async (args) => {
    try {
      return await next(args);
    } catch (err) {
      if (isDatabaseOutage(err)) {
        logger.warn({ message: 'database unavailable', error: err as Error });
        throw new DataError('DatabaseUnavailable', 'The database is temporarily unavailable; please retry shortly');
      }
      throw err;
    }
  },
  { step: 'initialize', name: 'databaseOutageTranslator' },
);

export const db = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

export const TABLE = config.table.name;
export const GSI1 = 'GSI1';
export const GSI2 = 'GSI2';

/** Pagination cursors are opaque to clients: the LastEvaluatedKey, base64url-encoded JSON. */
export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

/**
 * Decodes a cursor and checks it is one this query could have produced: only the query's key
 * attributes, and the partition key equal to the one being queried, so a forged cursor can neither
 * reach another partition nor make DynamoDB reject the query.
 */
export function decodeCursor(
  cursor: string | undefined,
  keyAttributes: readonly string[],
  fixed: Record<string, string>,
  /** Attributes the query's own cursors may add beside the key (strings). */
  optional: readonly string[] = [],
): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const ok =
    key !== null &&
    typeof key === 'object' &&
    !Array.isArray(key) &&
    Object.keys(key).every((k) => keyAttributes.includes(k) || optional.includes(k)) &&
    [...keyAttributes, ...optional.filter((k) => k in key)].every((k) => typeof (key as Record<string, unknown>)[k] === 'string') &&
    Object.entries(fixed).every(([k, v]) => (key as Record<string, unknown>)[k] === v);
  if (!ok) throw new DataError('InvalidCursor', 'Invalid cursor', 'Pass the nextCursor value of the previous page unchanged');
  return key as Record<string, unknown>;
}

/**
 * One page of a GSI1 (or GSI2) partition, in sort-key order (`forward`) or newest first, with the
 * opaque cursor of the next page: the list access pattern of users, conversations and messages alike.
 */
export async function queryIndexPage(
  partition: string,
  options: { forward: boolean; limit: number; cursor?: string; index?: typeof GSI1 | typeof GSI2 },
): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
  const index = options.index ?? GSI1;
  const [pk, sk] = [`${index}PK`, `${index}SK`];
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: index,
      KeyConditionExpression: `${pk} = :p`,
      ExpressionAttributeValues: { ':p': partition },
      ScanIndexForward: options.forward,
      Limit: options.limit,
      ExclusiveStartKey: decodeCursor(options.cursor, ['PK', 'SK', pk, sk], { [pk]: partition }),
    }),
  );
  return { items: Items, nextCursor: encodeCursor(LastEvaluatedKey) };
}

/**
 * The item a failed condition returns (ReturnValuesOnConditionCheckFailure ALL_OLD), as a plain
 * object: the document client leaves the errors' items marshalled ({N: '3'}).
 */
export function plainItem(item: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!item) return undefined;
  const marshalled = Object.values(item).every((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1);
  return marshalled ? unmarshall(item as Parameters<typeof unmarshall>[0]) : item;
}

export type ItemKey = { PK: string; SK: string };
export type ItemsByKey = (key: ItemKey) => Record<string, unknown> | undefined;

/**
 * One BatchGet of items of several entities, keys built by their modules (the conversation, the
 * resource and the thread of a chat turn; a conversation and its usage buckets): for the access
 * patterns that span entities. Unprocessed keys
 * are asked for again, so the answer is complete; in the normal case it is one round trip.
 */
export async function getItems(keys: ItemKey[], consistent = true): Promise<ItemsByKey> {
  const found = new Map<string, Record<string, unknown>>();
  const id = (k: { PK: unknown; SK: unknown }) => `${String(k.PK)}\u0000${String(k.SK)}`;
  const unique = [...new Map(keys.map((k) => [id(k), k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(i, i + 100);
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(500, 10 * 2 ** attempt) * Math.random()));
      const out: BatchGetCommandOutput = await db.send(
        new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      for (const item of out.Responses?.[TABLE] ?? []) found.set(id(item as ItemKey), item);
      pending = out.UnprocessedKeys?.[TABLE]?.Keys;
    }
  }
  return (key) => found.get(id(key));
}

/** Deletes items of any entities by key, 25 to a BatchWrite; unprocessed ones are sent again (backing off). */
export async function deleteItems(keys: ItemKey[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 25) {
    let pending: { DeleteRequest: { Key: ItemKey } }[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt) * Math.random()));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending } }));
      pending = (out.UnprocessedItems?.[TABLE] ?? []) as typeof pending;
    }
  }
}

/**
 * Every item of one partition, or of its sort keys that begin with `prefix`: strongly consistent, all
 * pages (a team's members, a user's partition, a team's invitations). `projection` limits the
 * attributes read back (not the read units: those count the items).
 */
export async function queryPartition(pk: string, options: { prefix?: string; projection?: string } = {}): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: options.prefix === undefined ? 'PK = :pk' : 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ...(options.prefix === undefined ? {} : { ':prefix': options.prefix }) },
        ProjectionExpression: options.projection,
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * An amount as the table keeps it: USD, written as its exact decimal (at most 9 fractional digits),
 * never through a binary fraction, so DynamoDB's exact decimal ADD and comparisons see the amount
 * itself (core/money.ts). Items written before (USD rounded to 1e-6) are the same kind of number.
 */
export const storedUsd = (nanos: Nanos): NumberValue => NumberValue.from(usdText(nanos));

/** An amount read from the table (a stored USD number, absent: 0), in nano-dollars. */
export const readUsd = (value: unknown): Nanos =>
  value === undefined || value === null ? 0 : nanosOf(value instanceof NumberValue ? value.value : (value as number | string));
