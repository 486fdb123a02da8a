import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformName } from '../../core/vocabulary';
import { BreakdownSums } from '../breakdown';
import { TABLE, db } from '../client';
import type { TurnUsage } from '../messages';
import { resourceChatCountersWrite } from '../resources';
import { cancellationReasons, transactionChunks, transactWrite, type TransactItems } from '../transactions';
import { SlotSums, addDelta, modelTotalsWrite, type UsageDelta } from '../usage';

/**
 * The shared aggregates, applied exactly once from the table's stream (lib/usage/aggregator.ts):
 *
 *   PK USAGE#ALL                          SK H#<hour>   the service-wide hour items (tables/usage.ts layout)
 *   PK USAGE#MODEL#<platform>#<modelId>   SK TOTAL      a model's all-time totals
 *   PK RES#<id>                           SK META       the resource's chat_count, chat_latency_ms_total, last_chat_at
 *   PK AGGMARK#<eventId>                  SK CHUNK      applied-chunk marker: `last` event id, `n` turns, ttl
 *   PK BREAKDOWN#<view>#<kind>            SK <day>#<id> the spend breakdown by day and group (tables/breakdown.ts)
 *
 * A batch's answered turns are summed per aggregate item and written as one transaction: one update
 * per item however many turns touch it, plus a marker keyed by the first turn's stream event id,
 * conditional on not existing. Lambda retries a failed batch with the same records (the event source
 * mapping neither bisects nor reports partial failures, serverless.yml), so a retried batch meets its
 * own marker and skips what it covers: redelivery never double-counts. Chunks are cut greedily in
 * record order at 98 aggregate items, so the same records always give the same chunks; a redelivery
 * that runs past a marker's last record (a longer batch) applies only what follows it.
 */

/** One answered turn, named by its stream record. */
export interface TurnContribution {
  eventId: string;
  usage: TurnUsage;
}

/** TransactWriteItems takes 100 items: 98 aggregates, the marker, one spare. */
const MAX_AGGREGATES = 98;
/** Markers outlive the stream's 24-hour retention, after which no record can come again. */
const MARKER_TTL_SECONDS = 2 * 86_400;
/**
 * Aggregators of different shards conflict on USAGE#ALL; each retry is safe. Past this budget the
 * batch fails and Lambda delivers it again (the markers make that safe too).
 */
const RETRY_BUDGET_MS = 30_000;

const markerKey = (eventId: string) => ({ PK: `AGGMARK#${eventId}`, SK: 'CHUNK' });

interface ResourceCounters {
  count: number;
  latencyMsTotal: number;
  lastChatAt: string;
}

/** The sums of one chunk of contributions: one update per aggregate item. */
class Chunk {
  readonly all = new SlotSums();
  readonly models = new Map<string, { platform: PlatformName; modelId: string; delta: UsageDelta; at: Date }>();
  readonly resources = new Map<string, ResourceCounters>();
  readonly breakdown = new BreakdownSums();
  readonly contributions: TurnContribution[] = [];

  /** How many aggregate items the chunk writes with `c` added. */
  sizeWith(c: TurnContribution): number {
    const newHour = this.all.hasHourOf(c.usage.answeredAt) ? 0 : 1;
    const newModel = this.models.has(`${c.usage.platform}#${c.usage.modelId}`) ? 0 : 1;
    const newResource = this.resources.has(c.usage.resourceId) ? 0 : 1;
    const breakdown = this.breakdown.size + this.breakdown.added(c.usage);
    return this.all.size + this.models.size + this.resources.size + breakdown + newHour + newModel + newResource;
  }

  add(c: TurnContribution): void {
    const { usage } = c;
    this.contributions.push(c);
    this.all.add(usage.answeredAt, usage.delta);
    this.breakdown.add(usage);
    const modelKey = `${usage.platform}#${usage.modelId}`;
    const model = this.models.get(modelKey);
    const at = model && model.at > usage.answeredAt ? model.at : usage.answeredAt;
    this.models.set(modelKey, { platform: usage.platform, modelId: usage.modelId, delta: addDelta(model?.delta, usage.delta), at });
    const r = this.resources.get(usage.resourceId);
    const answeredAt = usage.answeredAt.toISOString();
    this.resources.set(usage.resourceId, {
      count: (r?.count ?? 0) + 1,
      latencyMsTotal: (r?.latencyMsTotal ?? 0) + Math.max(0, Math.round(usage.latencyMs)),
      lastChatAt: r && r.lastChatAt > answeredAt ? r.lastChatAt : answeredAt,
    });
  }
}

export interface AppliedTurns {
  /** Turns added to the aggregates by this call. */
  applied: number;
  /** Turns skipped because an earlier delivery of the same records had added them. */
  skipped: number;
  transactions: number;
}

/**
 * Adds answered turns to USAGE#ALL, the model totals and the resources' chat counters, exactly once
 * per stream record (see the header). `contributions` are in stream order.
 */
export async function applyTurnContributions(contributions: TurnContribution[], now: Date): Promise<AppliedTurns> {
  const result: AppliedTurns = { applied: 0, skipped: 0, transactions: 0 };
  let pending = contributions;
  while (pending.length > 0) {
    const chunk = transactionChunks(pending, () => new Chunk(), MAX_AGGREGATES)[0] as Chunk;
    const first = chunk.contributions[0] as TurnContribution;
    const last = chunk.contributions.at(-1) as TurnContribution;
    const outcome = await writeChunk(chunk, first.eventId, last.eventId, now);
    result.transactions += outcome.attempts;
    if (outcome.applied) {
      result.applied += chunk.contributions.length;
      pending = pending.slice(chunk.contributions.length);
      continue;
    }
    // An earlier delivery applied a chunk starting here: skip up to the last record it covered.
    const covered = pending.findIndex((c) => c.eventId === outcome.coveredThrough);
    const skip = covered >= 0 ? covered + 1 : pending.length;
    result.skipped += skip;
    pending = pending.slice(skip);
  }
  return result;
}

async function writeChunk(
  chunk: Chunk,
  firstEventId: string,
  lastEventId: string,
  now: Date,
): Promise<{ applied: true; attempts: number } | { applied: false; coveredThrough: string | undefined; attempts: number }> {
  const marker: TransactItems[number] = {
    Put: {
      TableName: TABLE,
      Item: {
        ...markerKey(firstEventId),
        entity: 'aggregation-marker',
        last: lastEventId,
        n: chunk.contributions.length,
        at: now.toISOString(),
        ttl: Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
  const fixed: TransactItems = [
    marker,
    ...chunk.all.writes({ kind: 'all' }),
    ...[...chunk.models.values()].map((m) => modelTotalsWrite(m.platform, m.modelId, m.delta, m.at)),
    ...chunk.breakdown.writes(),
  ];
  // A resource's update first also moves last_chat_at forward; if that condition fails (the resource
  // is gone, or a later turn was folded first by another shard's batch) it is retried without it, and
  // dropped if the resource is gone.
  const resources: { id: string; counters: ResourceCounters; moveLastChat: boolean }[] = [...chunk.resources].map(([id, counters]) => ({
    id,
    counters,
    moveLastChat: true,
  }));
  const retryUntil = Date.now() + RETRY_BUDGET_MS;
  for (let attempts = 1; ; attempts++) {
    const items = [...fixed, ...resources.map((r) => resourceChatCountersWrite(r.id, r.counters, r.moveLastChat))];
    try {
      await transactWrite(items, { until: retryUntil });
      return { applied: true, attempts };
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (!reasons) throw err;
      if (reasons[0] === 'ConditionalCheckFailed') {
        const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: markerKey(firstEventId), ConsistentRead: true }));
        return { applied: false, coveredThrough: Item?.last as string | undefined, attempts };
      }
      const failed = new Set(reasons.map((r, i) => (r === 'ConditionalCheckFailed' ? i - fixed.length : -1)).filter((i) => i >= 0));
      if (failed.size === 0) throw err;
      for (let i = resources.length - 1; i >= 0; i--) {
        if (!failed.has(i)) continue;
        const r = resources[i] as (typeof resources)[number];
        if (r.moveLastChat) r.moveLastChat = false;
        else resources.splice(i, 1);
      }
    }
  }
}
