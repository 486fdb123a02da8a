import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from './client';

/**
 * What single sign-on noticed about its own configuration, kept for admins (GET /api/auth/config):
 * one item per kind of warning, with when and where it was last seen.
 *
 *   PK SIGNON   SK WARNING#<code>
 *
 * One item the whole service shares, so it is written only when something is wrong and at most once
 * an hour (a conditional put: a storm of sign-ins against a misconfigured provider costs one write an
 * hour, and refused conditions), and cleared only after a read shows it is there: a healthy sign-in
 * reads (eventually consistent, half a read unit), and writes nothing.
 */
const PARTITION = 'SIGNON';
const warningKey = (code: string) => ({ PK: PARTITION, SK: `WARNING#${code}` });
const REWRITE_AFTER_MS = 3_600_000;

export interface SignOnWarning {
  code: string;
  message: string;
  last_seen_at: string;
}

/** Records the warning, unless it was recorded in the last hour. */
export async function noteSignOnWarning(warning: SignOnWarning): Promise<void> {
  const staleBefore = new Date(Date.parse(warning.last_seen_at) - REWRITE_AFTER_MS).toISOString();
  try {
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...warningKey(warning.code), entity: 'signon_warning', ...warning },
        ConditionExpression: 'attribute_not_exists(PK) OR last_seen_at < :stale',
        ExpressionAttributeValues: { ':stale': staleBefore },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
  }
}

/** Removes the warning once what it was about is fixed (a read first: nothing is written when there is none). */
export async function clearSignOnWarning(code: string): Promise<void> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: warningKey(code), ProjectionExpression: 'PK' }));
  if (Item) await db.send(new DeleteCommand({ TableName: TABLE, Key: warningKey(code) }));
}

export async function listSignOnWarnings(): Promise<SignOnWarning[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :warning)',
      ExpressionAttributeValues: { ':pk': PARTITION, ':warning': 'WARNING#' },
    }),
  );
  return Items.map((item) => ({ code: String(item.code), message: String(item.message), last_seen_at: String(item.last_seen_at) }));
}
