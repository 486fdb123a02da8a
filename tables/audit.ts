import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db, decodeCursor, encodeCursor } from './client';

/**
 * The audit log of admin actions: who did what, when, to what, and how it ended.
 *
 *   PK AUDIT   SK <ISO ts>#<id>
 *
 * One partition, sorted by time, so listing newest first is one Query. Admin actions are rare (human
 * speed), far below a partition's write limit.
 */
const PARTITION = 'AUDIT';

export interface AuditEntry {
  id: string;
  at: string;
  /** A user (admin actions), or the system (role `system`: the reconciler, a status read's sync). */
  actor: { id: string; username: string; role: string };
  action: string;
  target?: string;
  outcome: 'success' | 'failure';
  status: number;
  detail?: string;
  /** Why the system acted, in words (automatic actions only). */
  reason?: string;
}

export async function putAuditEntry(entry: Omit<AuditEntry, 'id'>): Promise<void> {
  const id = randomUUID();
  await db.send(new PutCommand({ TableName: TABLE, Item: { PK: PARTITION, SK: `${entry.at}#${id}`, entity: 'audit', id, ...entry } }));
}

export async function listAuditEntries(limit: number, cursor?: string): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': PARTITION },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: PARTITION }),
    }),
  );
  const entries = Items.map(({ PK: _pk, SK: _sk, entity: _e, ...rest }) => rest as AuditEntry);
  return { entries, nextCursor: encodeCursor(LastEvaluatedKey) };
}
