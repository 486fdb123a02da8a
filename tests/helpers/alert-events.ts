import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/runtime';

/**
 * The alert events written to this file's table (tables/alerts.ts putAlertEvent), as receivers will
 * get them: a Scan, which only a test may do (each integration file has a table of its own).
 */
export async function alertEvents(): Promise<Record<string, unknown>[]> {
  const client = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
  try {
    const events: Record<string, unknown>[] = [];
    let start: Record<string, any> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: process.env.TABLE_NAME,
          ExclusiveStartKey: start,
          FilterExpression: 'entity = :e',
          ExpressionAttributeValues: { ':e': { S: 'alert-event' } },
        }),
      );
      for (const item of page.Items ?? []) events.push(JSON.parse(item.payload?.S ?? '{}') as Record<string, unknown>);
      start = page.LastEvaluatedKey;
    } while (start);
    return events;
  } finally {
    client.destroy();
  }
}
