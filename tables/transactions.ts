import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { DataError } from './errors';

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** TransactWriteItems takes at most 100 items. */
const MAX_TRANSACTION_ITEMS = 100;

/**
 * Cuts `items`, in their order, into chunks of one transaction each: a chunk takes the next item
 * unless its transaction would then pass `maxItems` (its first item always fits). The same items
 * always give the same chunks, which a stream batch delivered again relies on.
 */
export function transactionChunks<T, C extends { sizeWith(item: T): number; add(item: T): void }>(
  items: readonly T[],
  newChunk: () => C,
  maxItems = MAX_TRANSACTION_ITEMS,
): C[] {
  const chunks: C[] = [];
  let current: C | undefined;
  for (const item of items) {
    if (!current || current.sizeWith(item) > maxItems) {
      current = newChunk();
      chunks.push(current);
    }
    current.add(item);
  }
  return chunks;
}

/**
 * The per-item cancellation codes of a cancelled transaction ('None', 'ConditionalCheckFailed',
 * 'TransactionConflict', ...), in the order of the items; undefined for any other error.
 */
export function cancellationReasons(err: unknown): string[] | undefined {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name !== 'TransactionCanceledException') return undefined;
  return (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/**
 * Cancellation reasons that say "not now" rather than "no": another transaction holds an item, or
 * the table or index is throttled. DynamoDB documents both as safe to retry.
 */
const TRANSIENT_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * Runs a transaction, retrying only when DynamoDB cancelled it for a transient reason: a conflict
 * with another transaction on the same items (a caller's own concurrent turns on their counters,
 * aggregators of two shards on USAGE#ALL) or throttling. A cancelled transaction wrote nothing, so a
 * retry cannot double-count. Condition failures (and every other reason) are returned to the caller.
 * `retry` bounds the retries: a number of attempts, or `{ until }`, a time (epoch ms) after which no
 * new attempt starts. A transaction still cancelled for a transient reason when they run out is a
 * DatabaseUnavailable (503, retry later), never an unexplained failure.
 */
export async function transactWrite(items: TransactItems, retry: number | { until: number } = 8): Promise<void> {
  const more = (attempt: number) => (typeof retry === 'number' ? attempt < retry : Date.now() < retry.until);
  for (let attempt = 1; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (err) {
      const reasons = cancellationReasons(err);
      const transient =
        reasons !== undefined && reasons.some((r) => TRANSIENT_REASONS.has(r)) && reasons.every((r) => r === 'None' || TRANSIENT_REASONS.has(r));
      const name = (err as { name?: string }).name;
      const inProgress = name === 'TransactionInProgressException' || name === 'TransactionConflictException';
      if (!(transient || inProgress)) throw err;
      if (!more(attempt)) {
        throw new DataError('DatabaseUnavailable', 'The database is busy with concurrent changes to the same records; please retry shortly');
      }
      // Full jitter keeps racing writers from colliding again in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 20 * 2 ** attempt)));
    }
  }
}
