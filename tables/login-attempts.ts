import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from './client';

/**
 * Failed logins per login name, for the brute-force throttle.
 *
 *   PK LOGINFAIL#<lowercased login>   SK WINDOW   count, first_failure_at (epoch s), ttl
 *
 * Keyed by the name typed, not by user id, so that names that do not exist are throttled exactly like
 * names that do and the answer reveals nothing. A fixed window opens at the first failure; the TTL
 * sweeps old windows away, and the code never trusts the TTL to have run.
 */
const key = (login: string) => ({ PK: `LOGINFAIL#${login.toLowerCase()}`, SK: 'WINDOW' });

export interface FailureWindow {
  count: number;
  firstFailureAt: number;
}

export async function getFailures(login: string): Promise<FailureWindow | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: key(login) }));
  return Item ? { count: Item.count as number, firstFailureAt: Item.first_failure_at as number } : undefined;
}

export async function recordFailure(login: string, nowSeconds: number, windowSeconds: number): Promise<void> {
  try {
    // Count into the open window...
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: key(login),
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: 'attribute_exists(PK) AND first_failure_at > :cutoff',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':cutoff': nowSeconds - windowSeconds },
      }),
    );
  } catch (err) {
    if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
    // ...or open a new one.
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...key(login), count: 1, first_failure_at: nowSeconds, ttl: nowSeconds + windowSeconds },
      }),
    );
  }
}

export async function clearFailures(login: string): Promise<void> {
  await db.send(new DeleteCommand({ TableName: TABLE, Key: key(login) }));
}
