import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from './client';

/**
 * Failed logins, for the brute-force throttle (lib/auth/login.ts decides what they mean).
 *
 *   PK LOGINFAIL#USER#<userId>        SK WINDOW   an account's failures, whatever name it was reached by
 *   PK LOGINFAIL#NAME#<lower login>   SK WINDOW   the failures of a name that is no account
 *     count, last_at (epoch ms), not_before (epoch ms: no attempt before then), ttl
 *   PK LOGINFAIL#ADDR#<source ip>     SK WINDOW   the failures from one address
 *     count, first_at (epoch s: a fixed window opens at the first failure), ttl
 *
 * A name that is no account is counted per name, exactly as an account is, so the answers do not tell
 * the two apart. The TTL sweeps old windows away; the code never trusts it to have run.
 */
export type LoginSubject = { kind: 'user'; userId: string } | { kind: 'name'; login: string };

const subjectKey = (s: LoginSubject) => ({
  PK: s.kind === 'user' ? `LOGINFAIL#USER#${s.userId}` : `LOGINFAIL#NAME#${s.login.toLowerCase()}`,
  SK: 'WINDOW',
});
const addressKey = (ip: string) => ({ PK: `LOGINFAIL#ADDR#${ip}`, SK: 'WINDOW' });

export interface SubjectFailures {
  count: number;
  lastAt: number;
  /** No attempt may start before this (epoch ms; 0: none is held back). */
  notBefore: number;
}

export interface AddressFailures {
  count: number;
  firstAt: number;
}

const isConditionFailure = (err: unknown) => (err as Error).name === 'ConditionalCheckFailedException';

/** The subject's failures, unless they were forgotten (`windowSeconds` after the last one). */
export async function getSubjectFailures(subject: LoginSubject, nowMs: number, windowSeconds: number): Promise<SubjectFailures | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: subjectKey(subject), ConsistentRead: true }));
  if (!Item || (Item.last_at as number) + windowSeconds * 1000 <= nowMs) return undefined;
  return { count: Item.count as number, lastAt: Item.last_at as number, notBefore: (Item.not_before as number | undefined) ?? 0 };
}

/**
 * Takes the one attempt a held-back subject may make once its wait is over: moves `not_before` on from
 * the value read, so that of simultaneous attempts exactly one goes ahead. False: another took it.
 */
export async function claimAttempt(subject: LoginSubject, seenNotBefore: number, nextNotBefore: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subjectKey(subject),
        UpdateExpression: 'SET not_before = :next',
        ConditionExpression: seenNotBefore === 0 ? 'attribute_not_exists(not_before) OR not_before = :zero' : 'not_before = :seen',
        ExpressionAttributeValues: { ':next': nextNotBefore, ...(seenNotBefore === 0 ? { ':zero': 0 } : { ':seen': seenNotBefore }) },
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    return false;
  }
}

/** Counts a failure of the subject; `notBefore` holds back its next attempt (0: not at all). */
export async function recordSubjectFailure(subject: LoginSubject, nowMs: number, notBefore: number, windowSeconds: number): Promise<void> {
  const ttl = Math.floor(nowMs / 1000) + windowSeconds;
  try {
    // Count into the remembered failures...
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subjectKey(subject),
        UpdateExpression: 'ADD #count :one SET last_at = :now, not_before = :nb, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(PK) AND last_at > :cutoff',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':nb': notBefore, ':ttl': ttl, ':cutoff': nowMs - windowSeconds * 1000 },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    // ...or start over: the earlier ones were forgotten.
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...subjectKey(subject), count: 1, last_at: nowMs, not_before: notBefore, ttl } }));
  }
}

export async function clearSubjectFailures(subject: LoginSubject): Promise<void> {
  await db.send(new DeleteCommand({ TableName: TABLE, Key: subjectKey(subject) }));
}

/** The failures from one address in its open window (which ends `windowSeconds` after its first failure). */
export async function getAddressFailures(ip: string, nowSeconds: number, windowSeconds: number): Promise<AddressFailures | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: addressKey(ip) }));
  if (!Item || (Item.first_at as number) + windowSeconds <= nowSeconds) return undefined;
  return { count: Item.count as number, firstAt: Item.first_at as number };
}

export async function recordAddressFailure(ip: string, nowSeconds: number, windowSeconds: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: addressKey(ip),
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: 'attribute_exists(PK) AND first_at > :cutoff',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':cutoff': nowSeconds - windowSeconds },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...addressKey(ip), count: 1, first_at: nowSeconds, ttl: nowSeconds + windowSeconds } }));
  }
}
