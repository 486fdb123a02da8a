import type { DynamoDBStreamEvent } from 'aws-lambda';
import { MetricUnit, logger, metrics } from '../../core/observability';
import { applyTurnContributions, type TurnContribution } from '../../tables/writes/aggregates';
import { putConversationIndexEntries } from '../../tables/messages';
import { settlePendingCalls } from '../../tables/writes/calls';
import { decodeTableChanges, type TableChange } from '../../tables/stream';
import { foldUsageHours, sameScope, scopeName, type UsageScope } from '../../tables/usage';
import { mapLimit } from '../concurrency';

/** Fold passes run side by side: at the top of an hour a batch may bring every active scope's new hour. */
const FOLD_CONCURRENCY = 8;

/**
 * The stream aggregator: what every chat turn leaves for everyone, folded off the request path, and
 * the settlement of the gateway's calls (tables/calls.ts), which their critical path leaves to it.
 *
 * A turn's own transaction writes only the caller's items (tables/writes/turns.ts). From the table's stream,
 * in batches, this adds the answered turns to the shared aggregates (the service-wide usage, the model
 * totals, the resources' chat counters and last_chat_at: tables/writes/aggregates.ts, exactly once per
 * record), indexes in its conversation's listing a turn written without its index entry (by a version
 * before entries went into the turn's own transaction: nothing the service writes now needs it, so
 * nobody's messages wait on this function), and, when a scope gets a new hour item,
 * folds that scope's day-old hours into its month item (tables/usage.ts). Everything it writes is
 * idempotent, so a batch Lambda retries after a failure changes nothing twice.
 *
 * Why a stream and not sharded counters: a sharded USAGE#ALL would still put a shared item in every
 * turn's transaction (only a smaller conflict rate), cost a read of every shard on each admin usage
 * read, and leave the model totals and resource counters shared; folding from the stream takes every
 * shared item off the request path and writes each once per batch instead of once per turn
 * (docs/architecture.md, "The chat write path").
 */

export interface AggregationResult {
  /** Pending gateway calls settled by this batch (a redelivered one is not counted twice). */
  settled: number;
  turns: number;
  applied: number;
  skipped: number;
  indexed: number;
  foldedHours: number;
  undecodable: number;
}

async function aggregateTableChanges(changes: TableChange[], now = new Date()): Promise<AggregationResult> {
  // Settlements first: a caller's budget and figures wait on them (their reservations hold the bound).
  const calls = changes.flatMap((c) => (c.kind === 'call' ? [c.call] : []));
  const settled = await settlePendingCalls(calls);
  const turns = changes.filter((c) => c.kind === 'turn');
  const undecodable = changes.filter((c) => c.kind === 'undecodable');
  for (const bad of undecodable) {
    // Skipped, not retried: a record that cannot be read now never will be, and retrying it would hold
    // up every record behind it in its shard. The metric below is what an alarm watches.
    logger.error({ message: 'stream record skipped: cannot be aggregated', eventId: bad.eventId, reason: bad.reason });
  }

  await putConversationIndexEntries(turns.flatMap((t) => (t.index ? [t.index] : [])));
  const contributions: TurnContribution[] = turns.flatMap((t) => (t.usage ? [{ eventId: t.eventId, usage: t.usage }] : []));
  const applied = await applyTurnContributions(contributions, now);

  const scopes: UsageScope[] = [];
  for (const c of changes) if (c.kind === 'usage-hour' && !scopes.some((s) => sameScope(s, c.scope))) scopes.push(c.scope);
  const foldedHours = (await mapLimit(scopes, FOLD_CONCURRENCY, (scope) => foldUsageHours(scope, now))).reduce((a, n) => a + n, 0);

  const result: AggregationResult = {
    settled,
    turns: turns.length,
    applied: applied.applied,
    skipped: applied.skipped,
    indexed: turns.filter((t) => t.index).length,
    foldedHours,
    undecodable: undecodable.length,
  };
  metrics.addMetric('AggregatedTurns', MetricUnit.Count, applied.applied);
  if (calls.length) {
    metrics.addMetric('SettledCalls', MetricUnit.Count, settled);
    const waited = Math.min(...calls.map((c) => Date.parse(c.answeredAt)));
    metrics.addMetric('SettlementLag', MetricUnit.Milliseconds, Math.max(0, now.getTime() - waited));
  }
  if (undecodable.length) metrics.addMetric('UndecodableStreamRecords', MetricUnit.Count, undecodable.length);
  // The oldest turn of the batch waited longest: its lag is the batch's.
  const oldest = Math.min(...contributions.map((c) => c.usage.answeredAt.getTime()));
  if (contributions.length) metrics.addMetric('AggregationLag', MetricUnit.Milliseconds, Math.max(0, now.getTime() - oldest));
  logger.info({
    message: 'stream batch aggregated',
    records: changes.length,
    ...result,
    scopes: scopes.map(scopeName),
    transactions: applied.transactions,
  });
  return result;
}

/**
 * One stream batch, as Lambda delivers it (functions/usage/aggregate.ts; locally local/stream-poller.ts).
 * A failure is logged with the batch's sequence range and counted (AggregationFailures, alarm-able),
 * then thrown: Lambda retries the same batch a bounded number of times and then hands its range to the
 * on-failure queue (serverless.yml), so one bad batch never holds its shard for the stream's whole
 * retention.
 */
export async function aggregateStreamEvent(event: DynamoDBStreamEvent): Promise<AggregationResult> {
  const records = event.Records ?? [];
  try {
    return await aggregateTableChanges(decodeTableChanges(records));
  } catch (err) {
    metrics.addMetric('AggregationFailures', MetricUnit.Count, 1);
    logger.error({
      message: 'stream batch failed; Lambda retries it',
      error: err as Error,
      records: records.length,
      firstSequenceNumber: records[0]?.dynamodb?.SequenceNumber,
      lastSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber,
    });
    throw err;
  }
}
