import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformName } from '../core/vocabulary';
import { TABLE, db, getItems } from './client';
import { conversationFromItem, conversationKey, type Conversation } from './conversations';
import type { TransactItems } from './transactions';

/**
 * Usage counters (spec 2.5, 4.6), updated in the same transaction as the chat turn they count.
 *
 *   PK USAGE#<scope>                         SK M#<yyyy-mm>            month bucket
 *   PK USAGE#<scope>                         SK H#<yyyy-mm-ddThh>      hour bucket + twelve 5-minute slots
 *   PK USAGE#MODEL#<platform>#<modelId>      SK TOTAL                  all-time totals of a model
 *
 * Scopes: USER#<userId>, CONV#<convId>, KEY#<keyId> (an API key's gateway calls), ALL. Every bucket carries requests, tokens_in, tokens_out and
 * cost_usd. An hour bucket also carries the same four figures per 5-minute slot (s00_…, s05_…, …
 * s55_…), so "the last 24 hours" is 24 whole hour buckets plus the tail slots of a 25th: exact to
 * within 5 minutes, and always one read of 26 fixed keys however long the history is.
 *
 * Times are UTC. DynamoDB numbers are decimals, so adding costs (rounded to a millionth of a dollar
 * per turn) is exact.
 */

export type UsageScope = { kind: 'user'; id: string } | { kind: 'conversation'; id: string } | { kind: 'key'; id: string } | { kind: 'all' };

export interface UsageFigures {
  cost_usd: number;
  tokens_in: number;
  tokens_out: number;
  tokens_total: number;
  requests: number;
}

export interface UsageDelta {
  requests: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

const METRICS = ['requests', 'tokens_in', 'tokens_out', 'cost_usd'] as const;
const SLOT_MINUTES = 5;
const HOUR_MS = 3_600_000;
/** Hour buckets are only needed for 25 hours; they are kept a while longer for inspection, then expire. */
const HOUR_BUCKET_TTL_SECONDS = 35 * 86_400;

function scopePartition(scope: UsageScope): string {
  switch (scope.kind) {
    case 'user':
      return `USAGE#USER#${scope.id}`;
    case 'conversation':
      return `USAGE#CONV#${scope.id}`;
    case 'key':
      return `USAGE#KEY#${scope.id}`;
    case 'all':
      return 'USAGE#ALL';
  }
}

const monthSk = (at: Date) => `M#${at.toISOString().slice(0, 7)}`;
const hourSk = (at: Date) => `H#${at.toISOString().slice(0, 13)}`;
const slotOf = (at: Date) => Math.floor(at.getUTCMinutes() / SLOT_MINUTES) * SLOT_MINUTES;
const slotAttr = (slot: number, metric: (typeof METRICS)[number]) => `s${String(slot).padStart(2, '0')}_${metric}`;

const values = (d: UsageDelta) => ({ ':requests': d.requests, ':tokens_in': d.tokensIn, ':tokens_out': d.tokensOut, ':cost_usd': d.costUsd });

/** The counter updates of one counted chat turn: month and hour bucket of every scope. */
export function usageWrites(scopes: UsageScope[], at: Date, delta: UsageDelta): TransactItems {
  const slot = slotOf(at);
  const items: TransactItems = [];
  for (const scope of scopes) {
    const PK = scopePartition(scope);
    items.push({
      Update: {
        TableName: TABLE,
        Key: { PK, SK: monthSk(at) },
        UpdateExpression: `SET entity = :e ADD ${METRICS.map((m) => `${m} :${m}`).join(', ')}`,
        ExpressionAttributeValues: { ':e': 'usage', ...values(delta) },
      },
    });
    items.push({
      Update: {
        TableName: TABLE,
        Key: { PK, SK: hourSk(at) },
        UpdateExpression:
          'SET entity = :e, #ttl = if_not_exists(#ttl, :ttl) ' + `ADD ${METRICS.map((m) => `${m} :${m}, ${slotAttr(slot, m)} :${m}`).join(', ')}`,
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':e': 'usage',
          ':ttl': Math.floor(at.getTime() / 1000) + HOUR_BUCKET_TTL_SECONDS,
          ...values(delta),
        },
      },
    });
  }
  return items;
}

const modelTotalsKey = (platform: PlatformName, modelId: string) => ({ PK: `USAGE#MODEL#${platform}#${modelId}`, SK: 'TOTAL' });

/** The all-time totals of a model (spec 2.6 usage), in the turn's transaction. */
export function modelTotalsWrite(platform: PlatformName, modelId: string, delta: UsageDelta, at: Date): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: modelTotalsKey(platform, modelId),
      UpdateExpression:
        'SET entity = :e, platform = :p, model_id = :m, updated_at = :at ADD invocations :requests, tokens_in :tokens_in, tokens_out :tokens_out, cost_usd :cost_usd',
      ExpressionAttributeValues: { ':e': 'model-usage', ':p': platform, ':m': modelId, ':at': at.toISOString(), ...values(delta) },
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
    cost_usd: round6(Number(Item?.cost_usd ?? 0)),
  };
}

// ------------------------------------------------------------------------------------- reading

/** The 26 keys usage figures at `now` are computed from: the month bucket and 25 hour buckets. */
function usageKeys(scope: UsageScope, now: Date): { PK: string; SK: string }[] {
  const PK = scopePartition(scope);
  const keys = [{ PK, SK: monthSk(now) }];
  for (let h = 0; h <= 24; h++) keys.push({ PK, SK: hourSk(new Date(now.getTime() - h * HOUR_MS)) });
  return keys;
}

const zero = (): UsageFigures => ({ cost_usd: 0, tokens_in: 0, tokens_out: 0, tokens_total: 0, requests: 0 });
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

function finish(f: UsageFigures): UsageFigures {
  return { ...f, cost_usd: round6(f.cost_usd), tokens_total: f.tokens_in + f.tokens_out };
}

/**
 * mtd and last24h from the items read with `usageKeys` (`get` finds an item by key; absent buckets
 * count zero). The oldest hour bucket contributes only its slots from the one holding now - 24 h on.
 */
function usageFromItems(
  scope: UsageScope,
  now: Date,
  get: (key: { PK: string; SK: string }) => Record<string, unknown> | undefined,
): { mtd: UsageFigures; last24h: UsageFigures } {
  const [monthKey, ...hourKeys] = usageKeys(scope, now);
  const num = (item: Record<string, unknown> | undefined, attr: string) => Number(item?.[attr] ?? 0);

  const mtd = zero();
  const month = get(monthKey as { PK: string; SK: string });
  mtd.requests = num(month, 'requests');
  mtd.tokens_in = num(month, 'tokens_in');
  mtd.tokens_out = num(month, 'tokens_out');
  mtd.cost_usd = num(month, 'cost_usd');

  const last24h = zero();
  const add = (item: Record<string, unknown> | undefined, attr: (m: (typeof METRICS)[number]) => string) => {
    last24h.requests += num(item, attr('requests'));
    last24h.tokens_in += num(item, attr('tokens_in'));
    last24h.tokens_out += num(item, attr('tokens_out'));
    last24h.cost_usd += num(item, attr('cost_usd'));
  };
  hourKeys.forEach((key, h) => {
    const item = get(key);
    if (!item) return;
    if (h < 24) {
      add(item, (m) => m);
      return;
    }
    const firstSlot = slotOf(new Date(now.getTime() - 24 * HOUR_MS));
    for (let slot = firstSlot; slot < 60; slot += SLOT_MINUTES) add(item, (m) => slotAttr(slot, m));
  });
  return { mtd: finish(mtd), last24h: finish(last24h) };
}

/**
 * Month-to-date and last-24-hours figures of a scope: one strongly consistent BatchGet of fixed keys
 * (the month bucket and 25 hour buckets), so the cost does not grow with the history and a turn is
 * counted as soon as it has been recorded.
 */
export async function readUsage(scope: UsageScope, now: Date): Promise<{ mtd: UsageFigures; last24h: UsageFigures }> {
  return usageFromItems(scope, now, await getItems(usageKeys(scope, now)));
}

/** A conversation and its usage figures, in the same one BatchGet. */
export async function readConversationUsage(
  conversationId: string,
  now: Date,
): Promise<{ conversation: Conversation | undefined; usage: { mtd: UsageFigures; last24h: UsageFigures } }> {
  const scope: UsageScope = { kind: 'conversation', id: conversationId };
  const items = await getItems([...usageKeys(scope, now), conversationKey(conversationId)]);
  const conversation = items(conversationKey(conversationId));
  return { conversation: conversation ? conversationFromItem(conversation) : undefined, usage: usageFromItems(scope, now, items) };
}
