import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

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
 * Runs a transaction, retrying only when DynamoDB cancelled it for a conflict with another
 * transaction on the same items (a caller's own concurrent turns on their counters, aggregators of two
 * shards on USAGE#ALL). A cancelled transaction wrote nothing, so a retry cannot double-count.
 * Condition failures are returned to the caller. `retry` bounds the retries: a number of attempts, or
 * `{ until }`, a time (epoch ms) after which no new attempt starts.
 */
export async function transactWrite(items: TransactItems, retry: number | { until: number } = 8): Promise<void> {
  const more = (attempt: number) => (typeof retry === 'number' ? attempt < retry : Date.now() < retry.until);
  for (let attempt = 1; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (err) {
      const reasons = cancellationReasons(err);
      const conflict = reasons?.includes('TransactionConflict') && !reasons.includes('ConditionalCheckFailed');
      const throttled = (err as { name?: string }).name === 'TransactionInProgressException';
      if (!(conflict || throttled) || !more(attempt)) throw err;
      // Full jitter keeps racing writers from colliding again in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 20 * 2 ** attempt)));
    }
  }
}
