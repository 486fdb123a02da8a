import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { TABLE, db, getItems, plainItem } from './client';
import type { TransactItems } from './transactions';

/**
 * Requests and tokens per minute of an API key or a team (their `rpm_limit`, `tpm_limit`): one item
 * per limited level and minute, so no item is shared by every caller, only by the callers of one key
 * or one team.
 *
 *   PK RATE#KEY#<keyId> | RATE#TEAM#<teamId>   SK <yyyy-mm-ddThh:mm> (UTC; fixed one-minute windows)
 *     requests   the calls let through in that minute
 *     tokens     their token bounds (prompt bound + max output), each settled to the call's true count
 *                once it is answered (rateSettleWrite), or given back when its call failed
 *     ttl        an hour after the minute: DynamoDB deletes it (a late settle re-creates it with a ttl)
 *
 * A call is let through by ONE conditional write per level (`requests < rpm`, `tokens + bound <=
 * tpm`), inside the same transaction as its budget reservations when both apply
 * (tables/writes/holds.ts), so N callers arriving together get exactly rpm passes: DynamoDB serialises the
 * writes on the item, and each checks the count it finds.
 */
export interface RateLevel {
  kind: 'key' | 'team';
  id: string;
}

/** A level's limits; null: none of that kind. */
export interface RateLimit {
  level: RateLevel;
  rpm: number | null;
  tpm: number | null;
}

/** What one call took of a level's minute: one request and `tokens`, its token bound. */
export interface RateHold {
  level: RateLevel;
  minute: string;
  tokens: number;
}

export interface RateCount {
  requests: number;
  tokens: number;
}

export const minuteOf = (at: Date) => at.toISOString().slice(0, 16);
/** When a minute's window ends (epoch ms). */
export const minuteEndsAt = (minute: string) => Date.parse(`${minute}:00.000Z`) + 60_000;

const rateKey = (level: RateLevel, minute: string) => ({ PK: `RATE#${level.kind.toUpperCase()}#${level.id}`, SK: minute });
const ttlOf = (minute: string) => Math.floor(minuteEndsAt(minute) / 1000) + 3600;

export const rateCountOf = (item: Record<string, unknown> | undefined): RateCount => ({
  requests: Number(item?.requests ?? 0),
  tokens: Number(item?.tokens ?? 0),
});

/**
 * The conditional write that admits one call on a level: a request, and its token bound, counted in
 * the minute, conditional on both staying within the limits. The old item comes back when the
 * condition fails, so a refusal says what the window holds without a read.
 */
export function rateHoldWrite(limit: RateLimit, hold: RateHold): { Update: NonNullable<TransactItems[number]['Update']> } {
  const conditions: string[] = [];
  const values: Record<string, unknown> = { ':e': 'rate', ':one': 1, ':tokens': hold.tokens, ':ttl': ttlOf(hold.minute) };
  if (limit.rpm !== null) {
    conditions.push('(attribute_not_exists(requests) OR requests < :rpm)');
    values[':rpm'] = limit.rpm;
  }
  if (limit.tpm !== null) {
    conditions.push('(attribute_not_exists(tokens) OR tokens <= :room)');
    values[':room'] = limit.tpm - hold.tokens;
  }
  return {
    Update: {
      TableName: TABLE,
      Key: rateKey(hold.level, hold.minute),
      UpdateExpression: 'SET entity = :e, #ttl = if_not_exists(#ttl, :ttl) ADD requests :one, tokens :tokens',
      ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * A call's token bound turned into its true count (`tokens`), or given back (0: the call failed). No
 * condition: the pending call's or the turn's own write makes it happen once.
 */
export function rateSettleWrite(hold: RateHold, tokens: number): { Update: NonNullable<TransactItems[number]['Update']> } {
  return {
    Update: {
      TableName: TABLE,
      Key: rateKey(hold.level, hold.minute),
      UpdateExpression: 'SET entity = :e, #ttl = if_not_exists(#ttl, :ttl) ADD tokens :diff',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':e': 'rate', ':ttl': ttlOf(hold.minute), ':diff': Math.round(tokens) - hold.tokens },
    },
  };
}

/** Admits a call on one level alone: one conditional UpdateItem, which returns the new counts. */
export async function holdRate(limit: RateLimit, hold: RateHold): Promise<{ ok: true; count: RateCount } | { ok: false; count: RateCount }> {
  const { Update } = rateHoldWrite(limit, hold);
  try {
    const { Attributes } = await db.send(new UpdateCommand({ ...Update, ReturnValues: 'ALL_NEW' }));
    return { ok: true, count: rateCountOf(Attributes) };
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    return { ok: false, count: rateCountOf(plainItem((err as { Item?: Record<string, unknown> }).Item)) };
  }
}

/** Gives a failed call's token bound back (its request stays counted: it was made). */
export async function releaseRate(hold: RateHold): Promise<void> {
  await db.send(new UpdateCommand(rateSettleWrite(hold, 0).Update as UpdateCommandInput));
}

/** The counts of several levels' minute: one strongly consistent BatchGet. */
export async function readRateCounts(levels: RateLevel[], minute: string): Promise<RateCount[]> {
  const items = await getItems(levels.map((l) => rateKey(l, minute)));
  return levels.map((l) => rateCountOf(items(rateKey(l, minute))));
}
