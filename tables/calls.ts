import { PutCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Nanos } from '../core/money';
import type { PlatformName } from '../core/vocabulary';
import type { BudgetOwner, Reservation, SpendSettle } from './budgets';
import { TABLE, db, readUsd, storedUsd } from './client';
import type { RateHold, RateLevel } from './rates';
import type { UsageDelta, UsageScope } from './usage';

/**
 * Metered calls that store nothing of their own (the gateway's /v1 calls): the ONE write on the
 * critical path after the model answered, and its settlement, folded from the table's stream.
 *
 *   PK PENDING#<userId>   SK <answeredAt>#<callId>   a call answered and not yet settled (entity `call`):
 *       everything its settlement needs (tokens, cost, latency, the model, the resource, the request
 *       id, the key, the scopes it counts in, and each budget owner's reservation or charge), and the
 *       client's session and end user where it named them
 *
 * The stream aggregator (lib/usage/aggregator.ts) settles it (tables/writes/calls.ts) in one transaction: the pending item is
 * deleted (conditional on its existence: the transaction is idempotent, and a redelivered record
 * finds nothing to do), the call is logged in its key's call log (below, 90 days), the hour items of
 * its scopes count it, each budget owner's reservation becomes the true cost (or the cost is
 * charged where none was taken), and each rate window's token bound the call's true tokens. Until then every reservation holds its bound, so no budget can be
 * overshot while the settle is in flight, and readers of the caller's own figures add the caller's
 * pending calls (pendingCallsOf: one strongly consistent Query of their own partition, empty but for
 * the second or so a settle takes), so a caller always reads their own calls.
 *
 *   PK KEYCALLS#<keyId>   SK MSG#<startedAt>#<callId>  the call log (entity `turn`, no texts; ttl 90
 *       days): counted service-wide, per model and per resource by the aggregator like a chat turn.
 *
 * Why not the log item alone, or a transaction on the critical path: a transaction of five items
 * costs about 25 ms p50 and 90 ms p99 from Lambda, a PutItem about 7.5 ms and 16 ms; and finding a
 * caller's unsettled calls among their logged ones would cost a read of the whole log.
 */

export interface MeteredCall {
  callId: string;
  requestId: string;
  userId: string;
  keyId: string;
  startedAt: string;
  answeredAt: string;
  resource: { id: string; type: PlatformName };
  /** The route the call named, when it named one (`resource` is the target that answered). */
  route?: { id: string; name: string };
  /** The model that answered, and the one its usage counts against (the model totals). */
  modelId: string;
  usageModelId: string;
  tokensIn: number;
  tokensOut: number;
  /** Input tokens read from the prompt cache (the spend breakdown's cached_tokens). */
  cachedTokens?: number;
  latencyMs: number;
  /** What it cost, in nano-dollars (core/money.ts). */
  cost: Nanos;
  /** Where the call counts: the user's and the key's usage scopes, and the teams' it counts in. */
  scopes: UsageScope[];
  /** Each budget owner's reservation to settle, or the plain charge of an owner without one. */
  settles: SpendSettle[];
  /** The rate windows whose token bounds become the call's true tokens (tables/rates.ts). */
  rates?: RateHold[];
  /** The client's session (X-Claude-Code-Session-Id) and the end user it named (metadata.user_id, OpenAI's user), as sent. */
  session?: string;
  endUser?: string;
}

const pendingPartition = (userId: string) => `PENDING#${userId}`;
/** A pending call's key: where it was put, and what its settlement deletes. */
export const pendingCallKey = (call: Pick<MeteredCall, 'userId' | 'answeredAt' | 'callId'>) => ({
  PK: pendingPartition(call.userId),
  SK: `${call.answeredAt}#${call.callId}`,
});
/** A call through a route names it (`ro` id, `rn` name) on its pending item and its log entry. */
export const routeAttributes = (call: Pick<MeteredCall, 'route'>) => (call.route ? { ro: call.route.id, rn: call.route.name } : {});
/** A call's session (`ss`) and end user (`eu`), on its pending item and its log entry. */
export const attributionAttributes = (call: Pick<MeteredCall, 'session' | 'endUser'>) => ({
  ...(call.session !== undefined && { ss: call.session }),
  ...(call.endUser !== undefined && { eu: call.endUser }),
});

type StoredRate = { l: RateLevel['kind']; i: string; mi: string; tk: number };
type StoredSettle = { o: BudgetOwner['kind']; i: string; mo: string; a?: string; amt?: unknown; b?: number | null };

function storeSettle(s: SpendSettle): StoredSettle {
  if ('reservation' in s) {
    const r = s.reservation;
    return { o: r.owner.kind, i: r.owner.id, mo: r.month, a: r.attribute, amt: storedUsd(r.amount) };
  }
  return { o: s.owner.kind, i: s.owner.id, mo: s.month, b: s.budgetUsd };
}

function readSettle(s: StoredSettle): SpendSettle {
  const owner: BudgetOwner = { kind: s.o, id: s.i };
  if (s.a !== undefined) return { reservation: { owner, month: s.mo, attribute: s.a, amount: readUsd(s.amt) } satisfies Reservation };
  return { owner, month: s.mo, budgetUsd: s.b ?? null };
}

export const scopeRef = (s: UsageScope) => (s.kind === 'all' ? 'all' : `${s.kind}:${s.id}`);
function scopeOfRef(ref: string): UsageScope | undefined {
  const [kind, id] = ref.split(':', 2);
  if (kind === 'user' || kind === 'key' || kind === 'conversation' || kind === 'team' || kind === 'session') return id ? { kind, id } : undefined;
  return undefined;
}

/**
 * The critical path's one write: the answered call, pending settlement. Conditional on the key being
 * new, so a retry whose first attempt's answer was lost finds its own item and writes nothing again.
 */
export async function putPendingCall(call: MeteredCall): Promise<void> {
  try {
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          ...pendingCallKey(call),
          entity: 'call',
          id: call.callId,
          rid: call.requestId,
          k: call.keyId,
          st: call.startedAt,
          at: call.answeredAt,
          r: call.resource.id,
          p: call.resource.type,
          ...routeAttributes(call),
          ...attributionAttributes(call),
          m: call.modelId,
          ...(call.usageModelId !== call.modelId ? { um: call.usageModelId } : {}),
          ti: call.tokensIn,
          to: call.tokensOut,
          ms: call.latencyMs,
          ...(call.cachedTokens && { ct: call.cachedTokens }),
          usd: storedUsd(call.cost),
          sc: call.scopes.map(scopeRef),
          sv: call.settles.map(storeSettle),
          ...(call.rates?.length ? { rt: call.rates.map((r) => ({ l: r.level.kind, i: r.level.id, mi: r.minute, tk: r.tokens })) } : {}),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (err) {
    // The key is the call's own (its id is random): an item there is this call, written by an earlier attempt.
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
  }
}

/** A pending call's item as the stream or a Query returns it; undefined when it is not one. */
export function pendingCallOfItem(item: Record<string, unknown>): MeteredCall | undefined {
  const pk = typeof item.PK === 'string' ? item.PK : '';
  if (item.entity !== 'call' || !pk.startsWith('PENDING#')) return undefined;
  const numbers = ['ti', 'to', 'ms'].map((k) => Number(item[k]));
  if (numbers.some((n) => !Number.isFinite(n)) || typeof item.id !== 'string' || typeof item.k !== 'string') return undefined;
  const scopes = (Array.isArray(item.sc) ? item.sc : []).map((ref) => scopeOfRef(String(ref)));
  if (scopes.some((s) => !s)) return undefined;
  const [tokensIn, tokensOut, latencyMs] = numbers as [number, number, number];
  return {
    callId: item.id,
    requestId: typeof item.rid === 'string' ? item.rid : '',
    userId: pk.slice('PENDING#'.length),
    keyId: item.k,
    startedAt: String(item.st),
    answeredAt: String(item.at),
    resource: { id: String(item.r), type: item.p as PlatformName },
    ...(typeof item.ro === 'string' && { route: { id: item.ro, name: String(item.rn) } }),
    ...(typeof item.ss === 'string' && { session: item.ss }),
    ...(typeof item.eu === 'string' && { endUser: item.eu }),
    modelId: String(item.m),
    usageModelId: String(item.um ?? item.m),
    tokensIn,
    tokensOut,
    ...(Number(item.ct) > 0 && { cachedTokens: Number(item.ct) }),
    latencyMs,
    cost: readUsd(item.usd),
    scopes: scopes as UsageScope[],
    settles: (Array.isArray(item.sv) ? (item.sv as StoredSettle[]) : []).map(readSettle),
    ...(Array.isArray(item.rt)
      ? { rates: (item.rt as StoredRate[]).map((r) => ({ level: { kind: r.l, id: r.i }, minute: r.mi, tokens: Number(r.tk) })) }
      : {}),
  };
}

/** A user's calls answered and not yet settled, oldest first: one strongly consistent Query of their own partition. */
export async function pendingCallsOf(userId: string): Promise<MeteredCall[]> {
  const calls: MeteredCall[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out: QueryCommandOutput = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :p',
        ExpressionAttributeValues: { ':p': pendingPartition(userId) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const call = pendingCallOfItem(item);
      if (call) calls.push(call);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return calls;
}

/** What a pending call adds to a usage scope's figures, at the time it was answered. */
export const usageDeltaOf = (call: MeteredCall): UsageDelta => ({
  requests: 1,
  tokensIn: call.tokensIn,
  tokensOut: call.tokensOut,
  cost: call.cost,
});

const ownerOf = (s: SpendSettle): BudgetOwner => ('reservation' in s ? s.reservation.owner : s.owner);
const monthOfSettle = (s: SpendSettle): string => ('reservation' in s ? s.reservation.month : s.month);

/**
 * What a budget owner's pending calls add to its spend item's `spent` for `month` once settled: their
 * cost (their reservations already hold their bounds on the item).
 */
export function pendingSpend(calls: MeteredCall[], owner: BudgetOwner, month: string): Nanos {
  let sum = 0;
  for (const call of calls) {
    const settle = call.settles.find((s) => ownerOf(s).kind === owner.kind && ownerOf(s).id === owner.id);
    if (settle && monthOfSettle(settle) === month) sum += call.cost;
  }
  return sum;
}
