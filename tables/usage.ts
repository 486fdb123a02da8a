import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { usdOf, type Nanos } from '../core/money';
import type { PlatformName } from '../core/vocabulary';
import { TABLE, db, readUsd, storedUsd } from './client';
import { getConversation, type Conversation } from './conversations';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';

/**
 * Usage counters (docs/openapi.yaml UsageFigures).
 *
 *   PK USAGE#<scope>                      SK H#<yyyy-mm-ddThh>   hour item: only its non-empty 5-minute slots
 *   PK USAGE#<scope>                      SK H#<yyyy-mm>         month item: the totals of the hours folded into it
 *   PK USAGE#MODEL#<platform>#<modelId>   SK TOTAL               all-time totals of a model (model-info usage)
 *
 * Scopes: USER#<userId>, CONV#<convId>, KEY#<keyId> (the gateway's API keys), TEAM#<teamId>,
 * SESSION#<userId>.<digest> (a client's session of the gateway's calls: sessionScope), ALL. A chat turn adds
 * to the hour items of its caller and its conversation in its own transaction (tables/writes/turns.ts), so
 * those figures are exact as soon as the turn is answered. Nothing every user shares is written on
 * the request path: the ALL scope and the model totals are added to by the stream aggregator
 * (tables/writes/aggregates.ts), which also folds old hours into month items for every scope.
 *
 * An hour item holds, per 5-minute slot it has seen, `r<mm>` requests, `i<mm>` input tokens, `o<mm>`
 * output tokens and `c<mm>` cost (USD, an exact decimal: tables/client.ts storedUsd), e.g. r05 for 00:05-00:09. "The last 24 hours" is 24 whole
 * hour items plus the tail slots of a 25th: exact to within 5 minutes. A full hour is at most 48
 * numbers, about 400 bytes with the keys: one write unit.
 *
 * A month item (`r`, `i`, `o`, `c`, and `w`: the last hour folded into it) sorts just before the
 * month's first hour, so one strongly consistent Query from the earlier of (month start, now - 25 h)
 * to now returns the month item and every hour not yet folded: month-to-date is the month item plus
 * the month's unfolded hours, whatever the history. Hours are folded once they are 26 hours old: past
 * the last-24-hours window, and past the stream's 24-hour retention, so no late stream record can add
 * to a folded hour.
 *
 * Usage written before this layout (month items `M#<yyyy-mm>` and hour items with long names:
 * requests, tokens_in, tokens_out, cost_usd and s<mm>_<name> slots) is read lazily, not migrated: the
 * old month item of the current month sorts after the hours, inside the same Query's range, and holds
 * everything counted the old way this month; an hour item written both ways is read both ways. From
 * the next month on nothing old is in the range that matters. See docs/architecture.md.
 *
 * Times are UTC. DynamoDB numbers are decimals, so adding costs (exact nano-dollars written as USD
 * decimals, never rounded) is exact; in code they are summed as integer nano-dollars (core/money.ts).
 */

export type UsageScope =
  | { kind: 'user'; id: string }
  | { kind: 'conversation'; id: string }
  | { kind: 'key'; id: string }
  | { kind: 'team'; id: string }
  | { kind: 'session'; id: string }
  | { kind: 'all' };

/**
 * A client's session (Claude Code's X-Claude-Code-Session-Id) as a scope of its user's: the user's id
 * and a digest of the session id the client chose (any printable text, which a key must not carry as
 * it is), so one user's session is never another's.
 */
export const sessionScope = (userId: string, session: string): UsageScope => ({
  kind: 'session',
  id: `${userId}.${createHash('sha256').update(session).digest('base64url').slice(0, 32)}`,
});

/** The figures as they are counted: cost in integer nano-dollars, so sums stay exact. */
interface Tally {
  cost: Nanos;
  tokens_in: number;
  tokens_out: number;
  requests: number;
}

interface UsageFigures {
  cost_usd: number;
  tokens_in: number;
  tokens_out: number;
  tokens_total: number;
  requests: number;
}

/** A scope's figures: month to date, the last 24 hours, and those 24 hours by clock hour (UTC). */
export interface UsageReport {
  mtd: UsageFigures;
  last24h: UsageFigures;
  /** The 25 clock hours the last 24 hours touch, oldest first, each from its start ('yyyy-mm-ddThh:00:00Z'); the first counts from now - 24 h. */
  hourly: (UsageFigures & { hour: string })[];
}

export interface UsageDelta {
  requests: number;
  tokensIn: number;
  tokensOut: number;
  cost: Nanos;
}

type Item = Record<string, unknown>;

/** The four figures, their short attribute names and the long names of the layout before this one. */
const METRICS = [
  { short: 'r', long: 'requests', of: (d: UsageDelta) => d.requests },
  { short: 'i', long: 'tokens_in', of: (d: UsageDelta) => d.tokensIn },
  { short: 'o', long: 'tokens_out', of: (d: UsageDelta) => d.tokensOut },
  { short: 'c', long: 'cost_usd', of: (d: UsageDelta) => d.cost },
] as const;

/** A metric's value as the item keeps it: the cost as its exact USD decimal, counts as they are. */
const stored = (m: (typeof METRICS)[number], value: number) => (m.short === 'c' ? storedUsd(value) : value);

const SLOT_MINUTES = 5;
const SLOTS = Array.from({ length: 60 / SLOT_MINUTES }, (_, i) => i * SLOT_MINUTES);
const HOUR_MS = 3_600_000;
/** An hour is folded into its month once it is this old (see the header). */
const FOLD_AFTER_HOURS = 26;
/**
 * A folded hour item is deleted by a later fold pass, at least this long after the pass that folded
 * it: a reader's one Query that saw the month item before the fold then still finds the hour.
 */
const DELETE_FOLDED_AFTER_MS = 60_000;
/**
 * Hour items expire after this even if never folded (a scope that fell silent keeps its last hours
 * until its next activity folds them, and a month is never longer).
 */
const HOUR_TTL_SECONDS = 35 * 86_400;

const ENTITY_HOUR = 'usage-hour';
const ENTITY_MONTH = 'usage-month';

function scopePartition(scope: UsageScope): string {
  switch (scope.kind) {
    case 'user':
      return `USAGE#USER#${scope.id}`;
    case 'conversation':
      return `USAGE#CONV#${scope.id}`;
    case 'key':
      return `USAGE#KEY#${scope.id}`;
    case 'team':
      return `USAGE#TEAM#${scope.id}`;
    case 'session':
      return `USAGE#SESSION#${scope.id}`;
    case 'all':
      return 'USAGE#ALL';
  }
}

/** The scope of a usage partition key, for the stream decoder; undefined for anything else. */
function scopeOfPartition(pk: string): UsageScope | undefined {
  if (pk === 'USAGE#ALL') return { kind: 'all' };
  const m = /^USAGE#(USER|CONV|KEY|TEAM|SESSION)#(.+)$/.exec(pk);
  if (!m) return undefined;
  const kind = m[1] === 'USER' ? 'user' : m[1] === 'CONV' ? 'conversation' : m[1] === 'TEAM' ? 'team' : m[1] === 'SESSION' ? 'session' : 'key';
  return { kind, id: m[2] as string };
}

export const sameScope = (a: UsageScope, b: UsageScope) => scopePartition(a) === scopePartition(b);
export const scopeName = (scope: UsageScope) => scopePartition(scope).slice('USAGE#'.length);

const hourOf = (at: Date) => at.toISOString().slice(0, 13);
const monthOf = (at: Date | string) => (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);
const hourSk = (hour: string) => `H#${hour}`;
const monthSk = (month: string) => `H#${month}`;
const legacyMonthSk = (month: string) => `M#${month}`;
const slotOf = (at: Date) => Math.floor(at.getUTCMinutes() / SLOT_MINUTES) * SLOT_MINUTES;
const mm = (slot: number) => String(slot).padStart(2, '0');
const isHourSk = (sk: string) => sk.length === 15 && sk.startsWith('H#');
const isMonthSk = (sk: string) => sk.length === 9 && sk.startsWith('H#');

/** A usage hour item key in the stream: the scope and hour ('yyyy-mm-ddThh'), or undefined. */
export function usageHourOfKey(pk: string, sk: string): { scope: UsageScope; hour: string } | undefined {
  const scope = scopeOfPartition(pk);
  return scope && isHourSk(sk) ? { scope, hour: sk.slice(2) } : undefined;
}

/** Adds slot figures to one hour item of one scope: one Update however many slots it touches. */
function hourUpdate(scope: UsageScope, hour: string, slots: Map<number, UsageDelta>): TransactItems[number] {
  const adds: string[] = [];
  const values: Record<string, unknown> = {
    ':e': ENTITY_HOUR,
    ':ttl': Math.floor(Date.parse(`${hour}:00:00Z`) / 1000) + HOUR_TTL_SECONDS,
  };
  for (const [slot, delta] of slots) {
    for (const m of METRICS) {
      const value = m.of(delta);
      if (value === 0) continue;
      adds.push(`${m.short}${mm(slot)} :${m.short}${mm(slot)}`);
      values[`:${m.short}${mm(slot)}`] = stored(m, value);
    }
  }
  return {
    Update: {
      TableName: TABLE,
      Key: { PK: scopePartition(scope), SK: hourSk(hour) },
      UpdateExpression: `SET entity = :e, #ttl = if_not_exists(#ttl, :ttl)${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: values,
    },
  };
}

/** The counter updates of one counted turn at `at`: the hour item of every scope given. */
export function usageWrites(scopes: UsageScope[], at: Date, delta: UsageDelta): TransactItems {
  const slots = new Map([[slotOf(at), delta]]);
  return scopes.map((scope) => hourUpdate(scope, hourOf(at), slots));
}

/** Sums per hour and slot, for one update per hour item (the aggregator's ALL scope). */
export class SlotSums {
  private readonly hours = new Map<string, Map<number, UsageDelta>>();

  add(at: Date, delta: UsageDelta): void {
    const hour = hourOf(at);
    const slots = this.hours.get(hour) ?? new Map<number, UsageDelta>();
    const slot = slotOf(at);
    slots.set(slot, addDelta(slots.get(slot), delta));
    this.hours.set(hour, slots);
  }

  get size(): number {
    return this.hours.size;
  }

  hasHourOf(at: Date): boolean {
    return this.hours.has(hourOf(at));
  }

  writes(scope: UsageScope): TransactItems {
    return [...this.hours].map(([hour, slots]) => hourUpdate(scope, hour, slots));
  }
}

export function addDelta(a: UsageDelta | undefined, b: UsageDelta): UsageDelta {
  if (!a) return { ...b };
  return {
    requests: a.requests + b.requests,
    tokensIn: a.tokensIn + b.tokensIn,
    tokensOut: a.tokensOut + b.tokensOut,
    cost: a.cost + b.cost,
  };
}

// ------------------------------------------------------------------------------------- model totals

const modelTotalsKey = (platform: PlatformName, modelId: string) => ({ PK: `USAGE#MODEL#${platform}#${modelId}`, SK: 'TOTAL' });

/** Adds to the all-time totals of a model (docs/openapi.yaml ModelInfo usage); the aggregator's, once per model per batch. */
export function modelTotalsWrite(platform: PlatformName, modelId: string, delta: UsageDelta, at: Date): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: modelTotalsKey(platform, modelId),
      UpdateExpression:
        'SET entity = :e, platform = :p, model_id = :m, updated_at = :at ADD invocations :r, tokens_in :i, tokens_out :o, cost_usd :c',
      ExpressionAttributeValues: {
        ':e': 'model-usage',
        ':p': platform,
        ':m': modelId,
        ':at': at.toISOString(),
        ':r': delta.requests,
        ':i': delta.tokensIn,
        ':o': delta.tokensOut,
        ':c': storedUsd(delta.cost),
      },
    },
  };
}

export interface ModelUsageTotals {
  invocations: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
}

export async function getModelUsageTotals(platform: PlatformName, modelId: string): Promise<ModelUsageTotals> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: modelTotalsKey(platform, modelId) }));
  return {
    invocations: Number(Item?.invocations ?? 0),
    tokens_in: Number(Item?.tokens_in ?? 0),
    tokens_out: Number(Item?.tokens_out ?? 0),
    cost_usd: usdOf(readUsd(Item?.cost_usd)),
  };
}

// ------------------------------------------------------------------------------------- reading

const zero = (): Tally => ({ cost: 0, tokens_in: 0, tokens_out: 0, requests: 0 });
const num = (item: Item | undefined, attr: string) => Number(item?.[attr] ?? 0);

function finish({ cost, ...counts }: Tally): UsageFigures {
  return { ...counts, cost_usd: usdOf(cost), tokens_total: counts.tokens_in + counts.tokens_out };
}

function add(into: Tally, item: Item | undefined, attr: (m: (typeof METRICS)[number]) => string): void {
  into.requests += num(item, attr(METRICS[0]));
  into.tokens_in += num(item, attr(METRICS[1]));
  into.tokens_out += num(item, attr(METRICS[2]));
  into.cost += readUsd(item?.[attr(METRICS[3])]);
}

/** The figures an hour item holds in the current layout, from slot `fromSlot` on. */
function addShortSlots(into: Tally, item: Item, fromSlot = 0): void {
  for (const slot of SLOTS) if (slot >= fromSlot) add(into, item, (m) => `${m.short}${mm(slot)}`);
}

/** The figures an hour item holds in the layout before this one (whole hour, or from a slot on). */
function addLongSlots(into: Tally, item: Item, fromSlot?: number): void {
  if (fromSlot === undefined) add(into, item, (m) => m.long);
  else for (const slot of SLOTS) if (slot >= fromSlot) add(into, item, (m) => `s${mm(slot)}_${m.long}`);
}

/**
 * mtd and last24h at `now` from the items of one usage Query (see the header). Hours at or before the
 * month item's watermark are already in it (a fold pass leaves them for a minute before deleting them).
 */
function usageFromItems(items: Item[], now: Date, unsettled: Unsettled[] = []): UsageReport {
  const month = monthOf(now);
  const byKey = new Map(items.map((item) => [item.SK as string, item]));
  const monthItem = byKey.get(monthSk(month));
  const watermark = (monthItem?.w as string | undefined) ?? '';

  const mtd = zero();
  add(mtd, byKey.get(legacyMonthSk(month)), (m) => m.long);
  add(mtd, monthItem, (m) => m.short);

  const dayAgo = new Date(now.getTime() - 24 * HOUR_MS);
  const tailHour = hourOf(dayAgo);
  // The 25 clock hours the last 24 hours touch, oldest first; the first counted from now - 24 h.
  const hourly = Array.from({ length: 25 }, (_, i) => ({ hour: hourOf(new Date(dayAgo.getTime() + i * HOUR_MS)), figures: zero() }));
  const byHour = new Map(hourly.map((h) => [h.hour, h.figures]));
  for (const item of items) {
    const sk = item.SK as string;
    if (!isHourSk(sk)) continue;
    const hour = sk.slice(2);
    if (monthOf(hour) === month && hour > watermark) addShortSlots(mtd, item);
    const figures = byHour.get(hour);
    if (!figures) continue;
    const fromSlot = hour === tailHour ? slotOf(dayAgo) : undefined;
    addShortSlots(figures, item, fromSlot ?? 0);
    addLongSlots(figures, item, fromSlot);
  }
  // Calls answered and not settled yet (tables/calls.ts) are in no hour item: counted here, at their answer's time.
  const addDelta = (into: Tally, d: UsageDelta) => {
    into.requests += d.requests;
    into.tokens_in += d.tokensIn;
    into.tokens_out += d.tokensOut;
    into.cost += d.cost;
  };
  for (const { at, delta } of unsettled) {
    if (at.getTime() > now.getTime()) continue;
    if (monthOf(at) === month) addDelta(mtd, delta);
    const figures = byHour.get(hourOf(at));
    if (figures && at.getTime() >= dayAgo.getTime()) addDelta(figures, delta);
  }
  const last24h = zero();
  for (const { figures } of hourly) for (const m of ['requests', 'tokens_in', 'tokens_out', 'cost'] as const) last24h[m] += figures[m];
  return {
    mtd: finish(mtd),
    last24h: finish(last24h),
    hourly: hourly.map(({ hour, figures }) => ({ hour: `${hour}:00:00Z`, ...finish(figures) })),
  };
}

/** A scope's usage items with sort keys from `from` to `to`, strongly consistent (one page in practice). */
async function usageRange(scope: UsageScope, from: string, to: string): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const out: QueryCommandOutput = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':p': scopePartition(scope), ':from': from, ':to': to },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * Month-to-date and last-24-hours figures of a scope in one strongly consistent Query: from the
 * month item (or the hour of now - 24 h, if that is earlier) to the old layout's month item, which
 * sorts after every hour. What it reads is the month item and the hours not yet folded (at most about
 * a day and a half of them), however long the history; a turn is counted as soon as it is recorded.
 */
/** A use not in the scope's items yet (a call answered and not settled), to count in a read. */
export interface Unsettled {
  at: Date;
  delta: UsageDelta;
}

/** A scope's figures at `now`; `unsettled` (read beside the scope's items) adds what is not in them yet. */
export async function readUsage(scope: UsageScope, now: Date, unsettled: Unsettled[] | Promise<Unsettled[]> = []): Promise<UsageReport> {
  const dayAgo = hourSk(hourOf(new Date(now.getTime() - 24 * HOUR_MS)));
  const from = [monthSk(monthOf(now)), dayAgo].sort()[0] as string;
  const [items, extra] = await Promise.all([usageRange(scope, from, legacyMonthSk(monthOf(now))), unsettled]);
  return usageFromItems(items, now, extra);
}

/** A conversation and its usage figures: its strongly consistent GetItem beside the usage Query, in one round trip. */
export async function readConversationUsage(
  conversationId: string,
  now: Date,
): Promise<{ conversation: Conversation | undefined; usage: UsageReport }> {
  const [conversation, usage] = await Promise.all([
    getConversation(conversationId, { consistent: true }),
    readUsage({ kind: 'conversation', id: conversationId }, now),
  ]);
  return { conversation, usage };
}

// ------------------------------------------------------------------------------------- folding

const FOLD_CHUNK = 90;

/**
 * Folds a scope's hours that are at least FOLD_AFTER_HOURS old into their month items, and deletes
 * hours folded by an earlier pass. Idempotent and safe to run concurrently: each month item's update
 * is conditional on the watermark it was read with, so of two passes over the same hours one folds
 * them and the other finds the watermark moved and stops. Returns how many hours it folded.
 *
 * Run by the stream aggregator when a scope gets a new hour item, i.e. at most once per scope and hour.
 */
export async function foldUsageHours(scope: UsageScope, now: Date): Promise<number> {
  const cutoff = hourOf(new Date(now.getTime() - FOLD_AFTER_HOURS * HOUR_MS));
  // Hours expire after HOUR_TTL_SECONDS, so nothing older than the month before that can be left.
  const oldest = monthOf(new Date(now.getTime() - (HOUR_TTL_SECONDS * 1000 + 31 * 86_400_000)));
  const items = await usageRange(scope, monthSk(oldest), hourSk(cutoff));

  const months = new Map<string, { item?: Item; hours: Item[] }>();
  for (const item of items) {
    const sk = item.SK as string;
    const month = sk.slice(2, 9);
    const entry = months.get(month) ?? { hours: [] };
    if (isMonthSk(sk)) entry.item = item;
    else if (isHourSk(sk)) entry.hours.push(item);
    months.set(month, entry);
  }

  let folded = 0;
  for (const [month, { item, hours }] of months) {
    let watermark = item?.w as string | undefined;
    const canDelete = item?.wt !== undefined && now.getTime() - Number(item.wt) >= DELETE_FOLDED_AFTER_MS;
    const toDelete = canDelete ? hours.filter((h) => (h.SK as string).slice(2) <= (watermark as string)) : [];
    const toFold = hours
      .filter((h) => watermark === undefined || (h.SK as string).slice(2) > watermark)
      .sort((a, b) => String(a.SK).localeCompare(String(b.SK)));

    for (let i = 0; i < Math.max(toFold.length, toDelete.length > 0 ? 1 : 0); i += FOLD_CHUNK) {
      const chunk = toFold.slice(i, i + FOLD_CHUNK);
      const deletes = i === 0 ? toDelete.slice(0, FOLD_CHUNK - chunk.length) : [];
      const writes: TransactItems = deletes.map((h) => ({ Delete: { TableName: TABLE, Key: { PK: h.PK, SK: h.SK } } }));
      if (chunk.length > 0) {
        const sum = zero();
        for (const h of chunk) addShortSlots(sum, h);
        const next = (chunk.at(-1)?.SK as string).slice(2);
        writes.unshift({
          Update: {
            TableName: TABLE,
            Key: { PK: scopePartition(scope), SK: monthSk(month) },
            UpdateExpression: 'SET entity = :e, w = :w, wt = :wt ADD r :r, i :i, o :o, c :c',
            ConditionExpression: watermark === undefined ? 'attribute_not_exists(w)' : 'w = :old',
            ExpressionAttributeValues: {
              ':e': ENTITY_MONTH,
              ':w': next,
              ':wt': now.getTime(),
              ':r': sum.requests,
              ':i': sum.tokens_in,
              ':o': sum.tokens_out,
              ':c': storedUsd(sum.cost),
              ...(watermark === undefined ? {} : { ':old': watermark }),
            },
          },
        });
        watermark = next;
      }
      if (writes.length === 0) break;
      try {
        await transactWrite(writes);
        folded += chunk.length;
      } catch (err) {
        // Another pass folded these hours first (its watermark moved): nothing left to do here.
        if (cancellationReasons(err)?.[0] === 'ConditionalCheckFailed') break;
        throw err;
      }
    }
  }
  return folded;
}
