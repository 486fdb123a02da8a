import type { Nanos } from '../../core/money';
import { combinedSettleWrite, retrySettles, settleItem, settleItemKey, type SpendSettle } from '../budgets';
import { spendOwnerAttributes } from '../breakdown';
import { attributionAttributes, pendingCallKey, routeAttributes, scopeRef, usageDeltaOf, type MeteredCall } from '../calls';
import { TABLE } from '../client';
import { callLogItem } from '../messages';
import { rateSettleWrite, type RateHold } from '../rates';
import { cancellationReasons, transactionChunks, transactWrite, type TransactItems } from '../transactions';
import { SlotSums, usageWrites, type UsageScope } from '../usage';

/**
 * The settlement of the gateway's metered calls (tables/calls.ts: the pending call), the stream
 * aggregator's work: in one transaction, each call's pending item is deleted (conditional on its
 * existence: the transaction is idempotent, and a redelivered record finds nothing to do), its entry
 * put in its key's call log (tables/messages.ts callLogItem: a turn item without texts, 90 days), the
 * hour items of its scopes count it, each budget owner's reservation becomes the true cost (or the
 * cost is charged where none was taken), and each rate window's token bound the call's true tokens.
 */

/** A settled call's entry in its key's call log. */
const logEntry = (call: MeteredCall): Record<string, unknown> =>
  callLogItem(
    call,
    {
      answeredAt: call.answeredAt,
      modelId: call.modelId,
      usageModelId: call.usageModelId,
      platform: call.resource.type,
      tokensIn: call.tokensIn,
      tokensOut: call.tokensOut,
      latencyMs: call.latencyMs,
      cost: call.cost,
    },
    {
      r: call.resource.id,
      ...routeAttributes(call),
      ...attributionAttributes(call),
      k: call.keyId,
      rid: call.requestId,
      ...spendOwnerAttributes({ userId: call.userId, teamIds: call.scopes.flatMap((s) => (s.kind === 'team' ? [s.id] : [])) }, call.cachedTokens),
    },
  );

/** A call's own two items in its settlement: its pending item deleted (it must be there) and its log entry put (it must not). */
function ownSettlementItems(call: MeteredCall): TransactItems {
  return [
    {
      Delete: {
        TableName: TABLE,
        Key: pendingCallKey(call),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
    { Put: { TableName: TABLE, Item: logEntry(call), ConditionExpression: 'attribute_not_exists(PK)' } },
  ];
}

function settlementItems(call: MeteredCall, settles: SpendSettle[]): TransactItems {
  return [
    ...ownSettlementItems(call),
    ...usageWrites(call.scopes, new Date(call.answeredAt), usageDeltaOf(call)),
    ...(call.rates ?? []).map((r) => rateSettleWrite(r, call.tokensIn + call.tokensOut)),
    ...settles.map((s) => settleItem(s, call.cost)),
  ];
}

/**
 * Settles one pending call (the stream aggregator's work): one transaction, idempotent. Returns false
 * when the call was settled already (its pending item is gone: a redelivered stream record). A
 * reservation that expired before the settle came is adjusted instead (tables/budgets.ts).
 */
export async function settlePendingCall(call: MeteredCall): Promise<boolean> {
  let settles = call.settles;
  for (let attempt = 0; ; attempt++) {
    const items = settlementItems(call, settles);
    const first = items.length - settles.length;
    try {
      await transactWrite(items);
      return true;
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (reasons?.[0] === 'ConditionalCheckFailed') return false;
      const failed = (i: number) => reasons?.[first + i] === 'ConditionalCheckFailed';
      const next = reasons && attempt < 2 && settles.some((_, i) => failed(i)) ? retrySettles(settles, failed) : undefined;
      if (!next) throw err;
      settles = next;
    }
  }
}

/**
 * The calls of one settle transaction and what they add up to: each call's own two items (its
 * pending item deleted, its log entry put), and ONE update per shared item however many of the calls
 * touch it: a scope's hour item, a rate window, a budget owner's month.
 */
class SettleChunk {
  readonly calls: MeteredCall[] = [];
  private readonly usage = new Map<string, { scope: UsageScope; sums: SlotSums }>();
  private readonly rates = new Map<string, { hold: RateHold; tokens: number }>();
  private readonly spends = new Map<string, { settle: SpendSettle; cost: Nanos }[]>();

  /** How many items the transaction writes with `call` added. */
  sizeWith(call: MeteredCall): number {
    const at = new Date(call.answeredAt);
    let size = this.size + 2;
    for (const scope of call.scopes) {
      const u = this.usage.get(scopeRef(scope));
      if (!u?.sums.hasHourOf(at)) size++;
    }
    for (const r of call.rates ?? []) if (!this.rates.has(rateRef(r))) size++;
    for (const s of call.settles) if (!this.spends.has(settleItemKey(s))) size++;
    return size;
  }

  get size(): number {
    let usage = 0;
    for (const { sums } of this.usage.values()) usage += sums.size;
    return this.calls.length * 2 + usage + this.rates.size + this.spends.size;
  }

  add(call: MeteredCall): void {
    this.calls.push(call);
    const at = new Date(call.answeredAt);
    for (const scope of call.scopes) {
      const u = this.usage.get(scopeRef(scope)) ?? { scope, sums: new SlotSums() };
      u.sums.add(at, usageDeltaOf(call));
      this.usage.set(scopeRef(scope), u);
    }
    for (const r of call.rates ?? []) {
      const sum = this.rates.get(rateRef(r));
      const tokens = Math.round(call.tokensIn + call.tokensOut);
      this.rates.set(rateRef(r), sum ? { hold: { ...r, tokens: sum.hold.tokens + r.tokens }, tokens: sum.tokens + tokens } : { hold: r, tokens });
    }
    for (const settle of call.settles) {
      const key = settleItemKey(settle);
      this.spends.set(key, [...(this.spends.get(key) ?? []), { settle, cost: call.cost }]);
    }
  }

  items(): TransactItems {
    return [
      ...this.calls.flatMap(ownSettlementItems),
      ...[...this.usage.values()].flatMap(({ scope, sums }) => sums.writes(scope)),
      ...[...this.rates.values()].map(({ hold, tokens }) => rateSettleWrite(hold, tokens)),
      ...[...this.spends.values()].map(combinedSettleWrite),
    ];
  }
}

const rateRef = (r: RateHold) => `${r.level.kind}#${r.level.id}#${r.minute}`;

/**
 * Settles a batch of pending calls (the stream aggregator's work) in as few transactions as the
 * 100-item limit allows: the calls' hour items, rate windows and spend items summed, one update each
 * (tables/budgets.ts combinedSettleWrite), so a batch of many calls of a few keys costs two writes per
 * call plus a handful, not a transaction of six to ten items per call. Exactly once like the single
 * settle: each call's pending item is deleted on condition that it is there. A chunk cancelled on a
 * pending item (a redelivered record: that call was settled) is written again without it; one
 * cancelled on a spend item (a reservation expired before its settle came) is settled call by call
 * (settlePendingCall, which adjusts the expired one). Returns how many calls this settled.
 */
export async function settlePendingCalls(calls: MeteredCall[]): Promise<number> {
  // One key's calls side by side (a stable sort): they share most of their items, so chunks stay small.
  const byKey = [...calls].sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0));
  let settled = 0;
  for (const chunk of transactionChunks(byKey, () => new SettleChunk())) settled += await settleChunk(chunk);
  return settled;
}

async function settleChunk(chunk: SettleChunk): Promise<number> {
  if (chunk.calls.length === 1) return (await settlePendingCall(chunk.calls[0] as MeteredCall)) ? 1 : 0;
  for (let attempt = 0; chunk.calls.length > 0 && attempt < 3; attempt++) {
    try {
      await transactWrite(chunk.items());
      return chunk.calls.length;
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (!reasons) throw err;
      const { calls } = chunk;
      // Items 2i and 2i+1 are call i's own: its pending item gone means it was settled already.
      const gone = new Set(calls.flatMap((_, i) => (reasons[2 * i] === 'ConditionalCheckFailed' ? [i] : [])));
      const sharedFailed = reasons.slice(2 * calls.length).some((r) => r === 'ConditionalCheckFailed');
      if (gone.size === 0 || sharedFailed) break;
      // Again without the calls found settled already.
      chunk = new SettleChunk();
      for (const [i, call] of calls.entries()) if (!gone.has(i)) chunk.add(call);
    }
  }
  // Settled call by call: each one's own transaction, adjusting an expired reservation (or finding the call settled).
  let settled = 0;
  for (const call of chunk.calls) if (await settlePendingCall(call)) settled++;
  return settled;
}
