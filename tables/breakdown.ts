import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Nanos } from '../core/money';
import { TABLE, db, readUsd, storedUsd } from './client';
import type { TransactItems } from './transactions';

/**
 * Spend broken down by day and group (GET /api/usage/breakdown), folded from the table's stream with
 * the other shared aggregates (tables/writes/aggregates.ts: the same chunks, the same transaction, the same
 * marker, so a redelivered batch never counts twice):
 *
 *   PK BREAKDOWN#<view>#<kind>   SK <yyyy-mm-dd>#<groupId>   n requests, ti/to/ct tokens in/out/cached, usd
 *
 * `view` is whose calls the partition holds: `ALL` (admins), `USER#<userId>` (the caller's own calls),
 * `TEAM#<teamId>` (the calls a team counts: its owners' view). `kind` is what the rows are grouped by:
 * team, user, key, model, resource, route. A breakdown is ONE Query of one partition, its sort key
 * between two days: it reads the rows it returns (days x groups) and nothing else, whatever the number
 * of calls behind them. Each item is written once per stream batch however many calls of the batch it
 * sums (the aggregator sums a batch in memory first), so no item is written on any request's path and
 * no item is written by every call.
 */

export type BreakdownKind = 'team' | 'user' | 'key' | 'model' | 'resource' | 'route';

/** Whose calls a breakdown sums. */
export type BreakdownView = { kind: 'all' } | { kind: 'user'; id: string } | { kind: 'team'; id: string };

/** Who made a counted call, as its turn or call-log item names it (absent on items written before the breakdown). */
export interface SpendOwner {
  userId: string;
  keyId?: string;
  teamIds: string[];
  routeId?: string;
}

/** A counted call as the aggregator reads it (tables/messages.ts CountedCall). */
interface CountedCall {
  answeredAt: Date;
  modelId: string;
  resourceId: string;
  delta: { requests: number; tokensIn: number; tokensOut: number; cost: Nanos };
  owner?: SpendOwner;
  cachedTokens?: number;
}

export interface SpendFigures {
  requests: number;
  tokensIn: number;
  tokensOut: number;
  cachedTokens: number;
  cost: Nanos;
}

/** The sum of two figures (a fresh object: neither is changed). */
export const addSpend = (a: SpendFigures | undefined, b: SpendFigures): SpendFigures => ({
  requests: (a?.requests ?? 0) + b.requests,
  tokensIn: (a?.tokensIn ?? 0) + b.tokensIn,
  tokensOut: (a?.tokensOut ?? 0) + b.tokensOut,
  cachedTokens: (a?.cachedTokens ?? 0) + b.cachedTokens,
  cost: (a?.cost ?? 0) + b.cost,
});

const viewName = (v: BreakdownView) => (v.kind === 'all' ? 'ALL' : `${v.kind.toUpperCase()}#${v.id}`);
const partition = (view: BreakdownView, kind: BreakdownKind) => `BREAKDOWN#${viewName(view)}#${kind}`;

/** The attributes a turn or call-log item carries for the breakdown: who made it (short names, as the turn's own). */
export function spendOwnerAttributes(owner: SpendOwner, cachedTokens = 0): Record<string, unknown> {
  return {
    bu: owner.userId,
    ...(owner.teamIds.length > 0 && { bt: owner.teamIds }),
    ...(cachedTokens > 0 && { ct: cachedTokens }),
  };
}

/** Who made the call an item records, and its cached tokens; undefined owner for an item written before. */
export function spendOwnerOfItem(item: Record<string, unknown>): { owner?: SpendOwner; cachedTokens: number } {
  const cachedTokens = Number(item.ct ?? 0) || 0;
  if (typeof item.bu !== 'string') return { cachedTokens };
  return {
    cachedTokens,
    owner: {
      userId: item.bu,
      ...(typeof item.k === 'string' && { keyId: item.k }),
      teamIds: Array.isArray(item.bt) ? item.bt.map(String) : [],
      ...(typeof item.ro === 'string' && { routeId: item.ro }),
    },
  };
}

/** The groups a counted call falls in, per kind, within a view. */
function groupsOf(usage: CountedCall, view: BreakdownView): [BreakdownKind, string][] {
  const owner = usage.owner;
  const groups: [BreakdownKind, string][] = [
    ['model', usage.modelId],
    ['resource', usage.resourceId],
  ];
  if (!owner) return groups;
  groups.push(['user', owner.userId]);
  if (owner.keyId) groups.push(['key', owner.keyId]);
  if (owner.routeId) groups.push(['route', owner.routeId]);
  // A team's own partition lists that team alone; the others, every team the call counts in.
  for (const teamId of view.kind === 'team' ? [view.id] : owner.teamIds) groups.push(['team', teamId]);
  return groups;
}

/** The views a counted call is in: everyone's, its caller's, each of its teams'. Items written before the breakdown: everyone's only. */
function viewsOf(usage: CountedCall): BreakdownView[] {
  if (!usage.owner) return [{ kind: 'all' }];
  return [{ kind: 'all' }, { kind: 'user', id: usage.owner.userId }, ...usage.owner.teamIds.map((id) => ({ kind: 'team' as const, id }))];
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** A batch's breakdown items, summed in memory: one update per item however many calls it sums. */
export class BreakdownSums {
  private readonly items = new Map<string, { pk: string; sk: string; sums: SpendFigures }>();

  private keysOf(usage: CountedCall): { pk: string; sk: string }[] {
    const day = dayOf(usage.answeredAt);
    return viewsOf(usage).flatMap((view) => groupsOf(usage, view).map(([kind, id]) => ({ pk: partition(view, kind), sk: `${day}#${id}` })));
  }

  get size(): number {
    return this.items.size;
  }

  /** How many items are new with `usage` added. */
  added(usage: CountedCall): number {
    return this.keysOf(usage).filter((k) => !this.items.has(`${k.pk}\u0000${k.sk}`)).length;
  }

  add(usage: CountedCall): void {
    const figures = { ...usage.delta, cachedTokens: usage.cachedTokens ?? 0 };
    for (const key of this.keysOf(usage)) {
      const id = `${key.pk}\u0000${key.sk}`;
      this.items.set(id, { ...key, sums: addSpend(this.items.get(id)?.sums, figures) });
    }
  }

  writes(): TransactItems {
    return [...this.items.values()].map(({ pk, sk, sums }) => ({
      Update: {
        TableName: TABLE,
        Key: { PK: pk, SK: sk },
        UpdateExpression: 'SET entity = :e ADD n :n, ti :i, #to :o, ct :c, usd :u',
        ExpressionAttributeNames: { '#to': 'to' },
        ExpressionAttributeValues: {
          ':e': 'spend-breakdown',
          ':n': sums.requests,
          ':i': sums.tokensIn,
          ':o': sums.tokensOut,
          ':c': sums.cachedTokens,
          ':u': storedUsd(sums.cost),
        },
      },
    }));
  }
}

export interface BreakdownRow extends SpendFigures {
  day: string;
  groupId: string;
}

export interface BreakdownRead {
  rows: BreakdownRow[];
  /** What the Query cost, in read capacity units, as DynamoDB reports it. */
  readUnits: number;
}

/**
 * One view's rows of one kind between two days (inclusive, yyyy-mm-dd): a Query of one partition on a
 * sort-key range, paged to its end. Eventually consistent (half the units): the figures are the
 * stream's anyway.
 */
export async function readBreakdown(view: BreakdownView, kind: BreakdownKind, from: string, to: string): Promise<BreakdownRead> {
  const rows: BreakdownRow[] = [];
  let readUnits = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out: QueryCommandOutput = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':p': partition(view, kind), ':from': `${from}#`, ':to': `${to}#\uffff` },
        ExclusiveStartKey: startKey,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    readUnits += out.ConsumedCapacity?.CapacityUnits ?? 0;
    for (const item of out.Items ?? []) {
      const sk = String(item.SK);
      rows.push({
        day: sk.slice(0, 10),
        groupId: sk.slice(11),
        requests: Number(item.n ?? 0),
        tokensIn: Number(item.ti ?? 0),
        tokensOut: Number(item.to ?? 0),
        cachedTokens: Number(item.ct ?? 0),
        cost: readUsd(item.usd),
      });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return { rows, readUnits };
}
