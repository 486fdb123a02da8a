import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from './client';

/**
 * Login attempts, for the brute-force throttle (lib/auth/login.ts decides what they mean).
 *
 *   PK LOGINFAIL#USER#<userId>        SK WINDOW         an account's attempts, whatever name reached it
 *   PK LOGINFAIL#NAME#<lower login>   SK WINDOW         the attempts on a name that is no account
 *     count, last_at (epoch ms), ttl
 *   PK (either of the two)            SK ADDR#<ip>      one address's slot on that account or name
 *     not_before (epoch ms: no attempt from that address before then), ttl
 *   PK LOGINFAIL#ADDR#<source ip>     SK WINDOW         the attempts from one address
 *     count, first_at (epoch s: a fixed window opens at the first one), ttl
 *
 * An attempt is counted (reserved) on its account and its address before its password is checked,
 * each with one conditional ADD, so that however many arrive at once no more get through than the
 * counts allow; one that succeeds is taken off again. A name that is no account is counted per name,
 * exactly as an account is, so the answers do not tell the two apart. The TTL sweeps old windows away;
 * the code never trusts it to have run.
 */
export type LoginSubject = { kind: 'user'; userId: string } | { kind: 'name'; login: string };

const subjectPk = (s: LoginSubject) => (s.kind === 'user' ? `LOGINFAIL#USER#${s.userId}` : `LOGINFAIL#NAME#${s.login.toLowerCase()}`);
const subjectKey = (s: LoginSubject) => ({ PK: subjectPk(s), SK: 'WINDOW' });
/** Attempts from outside HTTP (no source address) share one slot. */
const slotKey = (s: LoginSubject, ip: string | undefined) => ({ PK: subjectPk(s), SK: `ADDR#${ip ?? '-'}` });
const addressKey = (ip: string) => ({ PK: `LOGINFAIL#ADDR#${ip}`, SK: 'WINDOW' });

export interface SubjectAttempts {
  count: number;
  lastAt: number;
}

export interface AddressAttempts {
  count: number;
  firstAt: number;
}

const isConditionFailure = (err: unknown) => (err as Error).name === 'ConditionalCheckFailedException';

/** Runs a conditional write; false when its condition did not hold. */
async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    return false;
  }
}

/** The subject's attempts, unless they were forgotten (`windowSeconds` after the last one). */
export async function getSubjectAttempts(subject: LoginSubject, nowMs: number, windowSeconds: number): Promise<SubjectAttempts | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: subjectKey(subject), ConsistentRead: true }));
  if (!Item || (Item.last_at as number) + windowSeconds * 1000 <= nowMs) return undefined;
  return { count: Item.count as number, lastAt: Item.last_at as number };
}

/**
 * Counts an attempt on the subject: a new window when none is open, else one more in it, only while
 * the count is below `bound` (when given). Returns the count with this attempt, or undefined when the
 * bound was reached first.
 */
export async function reserveSubjectAttempt(
  subject: LoginSubject,
  open: boolean,
  bound: number | undefined,
  nowMs: number,
  windowSeconds: number,
): Promise<number | undefined> {
  const ttl = Math.floor(nowMs / 1000) + windowSeconds;
  const cutoff = nowMs - windowSeconds * 1000;
  // Opening a window; a simultaneous attempt that opened it first makes this one count into it.
  if (!open) {
    const put = new PutCommand({
      TableName: TABLE,
      Item: { ...subjectKey(subject), count: 1, last_at: nowMs, ttl },
      ConditionExpression: 'attribute_not_exists(PK) OR last_at <= :cutoff',
      ExpressionAttributeValues: { ':cutoff': cutoff },
    });
    if (await conditionally(() => db.send(put))) return 1;
  }
  let count: number | undefined;
  const counted = await conditionally(async () => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subjectKey(subject),
        UpdateExpression: 'ADD #count :one SET last_at = :now, #ttl = :ttl',
        ConditionExpression: `last_at > :cutoff${bound === undefined ? '' : ' AND #count < :bound'}`,
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':ttl': ttl, ':cutoff': cutoff, ...(bound !== undefined && { ':bound': bound }) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    count = Attributes?.count as number;
  });
  return counted ? count : undefined;
}

/** Takes back an attempt counted on a subject that was refused on another count after all. */
export async function releaseSubjectAttempt(subject: LoginSubject): Promise<void> {
  await conditionally(() =>
    db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subjectKey(subject),
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: 'attribute_exists(PK) AND #count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    ),
  );
}

/** When the address may next try the subject (epoch ms; 0: now). */
export async function getSlot(subject: LoginSubject, ip: string | undefined): Promise<number> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: slotKey(subject, ip), ConsistentRead: true }));
  return (Item?.not_before as number | undefined) ?? 0;
}

/**
 * Takes the address's one attempt on a held-back subject once its wait is over: moves `not_before` on,
 * so that of simultaneous attempts from that address exactly one goes ahead. False: another took it.
 */
export async function takeSlot(subject: LoginSubject, ip: string | undefined, nowMs: number, nextNotBefore: number, windowSeconds: number) {
  return conditionally(() =>
    db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: slotKey(subject, ip),
        UpdateExpression: 'SET not_before = :next, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(not_before) OR not_before <= :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':next': nextNotBefore, ':now': nowMs, ':ttl': Math.floor(nowMs / 1000) + windowSeconds },
      }),
    ),
  );
}

/** Holds the address's next attempt on the subject back until `notBefore` (after a failure). */
export async function holdSlot(subject: LoginSubject, ip: string | undefined, notBefore: number, nowMs: number, windowSeconds: number) {
  await db.send(
    new PutCommand({ TableName: TABLE, Item: { ...slotKey(subject, ip), not_before: notBefore, ttl: Math.floor(nowMs / 1000) + windowSeconds } }),
  );
}

/** Forgets the subject's attempts and the address's slot on it (a successful login). */
export async function clearSubjectAttempts(subject: LoginSubject, ip: string | undefined): Promise<void> {
  await Promise.all([
    db.send(new DeleteCommand({ TableName: TABLE, Key: subjectKey(subject) })),
    db.send(new DeleteCommand({ TableName: TABLE, Key: slotKey(subject, ip) })),
  ]);
}

/** Forgets everything counted against an account: its attempts and every address's slot. Returns the attempts it had counted. */
export async function clearAccountAttempts(userId: string): Promise<number> {
  const PK = subjectPk({ kind: 'user', userId });
  let counted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': PK },
        ProjectionExpression: 'PK, SK, #count',
        ExpressionAttributeNames: { '#count': 'count' },
        ExclusiveStartKey: start,
      }),
    );
    const items = page.Items ?? [];
    await Promise.all(items.map((Key) => db.send(new DeleteCommand({ TableName: TABLE, Key: { PK: Key.PK, SK: Key.SK } }))));
    counted += items.reduce((sum, item) => sum + (item.SK === 'WINDOW' ? (item.count as number) : 0), 0);
    start = page.LastEvaluatedKey;
  } while (start);
  return counted;
}

/** The attempts from one address in its open window (which ends `windowSeconds` after its first one). */
export async function getAddressAttempts(ip: string, nowSeconds: number, windowSeconds: number): Promise<AddressAttempts | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: addressKey(ip) }));
  if (!Item || (Item.first_at as number) + windowSeconds <= nowSeconds) return undefined;
  return { count: Item.count as number, firstAt: Item.first_at as number };
}

/**
 * Counts an attempt from the address while its window holds fewer than `max`: a new window when none
 * is open. Returns the window's first_at (what releaseAddressAttempt needs), or undefined when refused.
 */
export async function reserveAddressAttempt(
  ip: string,
  open: AddressAttempts | undefined,
  max: number,
  nowSeconds: number,
  windowSeconds: number,
): Promise<number | undefined> {
  const cutoff = nowSeconds - windowSeconds;
  if (!open) {
    const put = new PutCommand({
      TableName: TABLE,
      Item: { ...addressKey(ip), count: 1, first_at: nowSeconds, ttl: nowSeconds + windowSeconds },
      ConditionExpression: 'attribute_not_exists(PK) OR first_at <= :cutoff',
      ExpressionAttributeValues: { ':cutoff': cutoff },
    });
    if (await conditionally(() => db.send(put))) return nowSeconds;
  }
  let firstAt: number | undefined;
  const counted = await conditionally(async () => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: addressKey(ip),
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: 'first_at > :cutoff AND #count < :max',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':cutoff': cutoff, ':max': max },
        ReturnValues: 'ALL_NEW',
      }),
    );
    firstAt = Attributes?.first_at as number;
  });
  return counted ? firstAt : undefined;
}

/** Takes back an attempt counted on the address (it succeeded, or was refused elsewhere), if its window is still the one. */
export async function releaseAddressAttempt(ip: string, firstAt: number): Promise<void> {
  await conditionally(() =>
    db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: addressKey(ip),
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: 'first_at = :first AND #count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':first': firstAt, ':zero': 0 },
      }),
    ),
  );
}
