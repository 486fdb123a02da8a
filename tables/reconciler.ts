import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from './client';

/**
 * The reconciler's own state: one item.
 *
 *   PK RECONCILER   SK STATE   lease_owner, lease_until   the pass running now (at most one)
 *                              cursor                     where the next pass goes on in the resource list
 *                              last_pass                  what the last finished pass did
 *
 * The lease is taken with a conditional write, so two passes never overlap (an EventBridge retry, a
 * slow pass meeting the next tick, a manual run): the second skips. A pass that dies leaves its lease
 * to expire.
 */
const KEY = { PK: 'RECONCILER', SK: 'STATE' };

export interface ReconcilerPassSummary {
  at: string;
  duration_ms: number;
  examined: number;
  platform_endpoints: number;
  changes: number;
  stops: number;
  orphans_found: number;
  platform_calls: Record<string, number>;
  /** true when this pass reached the end of the tracked resources (the next starts from the first). */
  cycle_complete: boolean;
  errors: number;
}

const isConditionFailure = (err: unknown) => (err as { name?: string })?.name === 'ConditionalCheckFailedException';

/** Takes the lease until `until`; undefined when another pass holds it. Returns where to go on from. */
export async function acquireReconcilerLease(owner: string, now: string, until: string): Promise<{ cursor: string | null } | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: KEY,
        UpdateExpression: 'SET lease_owner = :owner, lease_until = :until',
        ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now',
        ExpressionAttributeValues: { ':owner': owner, ':until': until, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { cursor: (Attributes?.cursor as string | undefined) ?? null };
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/** Ends a pass: stores the cursor (null: start from the first next time) and the summary, frees the lease. */
export async function finishReconcilerPass(owner: string, cursor: string | null, summary?: ReconcilerPassSummary): Promise<void> {
  // `cursor` is a DynamoDB reserved word: always through a name placeholder.
  const sets = [cursor ? '#cursor = :cursor' : '', summary ? 'last_pass = :summary' : ''].filter(Boolean);
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: KEY,
        UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}REMOVE lease_owner, lease_until${cursor ? '' : ', #cursor'}`,
        ConditionExpression: 'lease_owner = :owner',
        ExpressionAttributeNames: { '#cursor': 'cursor' },
        ExpressionAttributeValues: { ':owner': owner, ...(cursor ? { ':cursor': cursor } : {}), ...(summary ? { ':summary': summary } : {}) },
      }),
    );
  } catch (err) {
    // The lease expired and another pass took it: its word stands.
    if (!isConditionFailure(err)) throw err;
  }
}

export async function lastReconcilerPass(): Promise<ReconcilerPassSummary | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: KEY }));
  return Item?.last_pass as ReconcilerPassSummary | undefined;
}
