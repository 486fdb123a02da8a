import { localDynamoClient } from '../../local/runtime';
import { scanTable } from './scan';

/**
 * The alert events written to this file's table (tables/alerts.ts putAlertEvent), as receivers will
 * get them.
 */
export async function alertEvents(): Promise<Record<string, unknown>[]> {
  const client = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
  try {
    const items = await scanTable(client, { FilterExpression: 'entity = :e', ExpressionAttributeValues: { ':e': { S: 'alert-event' } } });
    return items.map((item) => JSON.parse(item.payload?.S ?? '{}') as Record<string, unknown>);
  } finally {
    client.destroy();
  }
}
