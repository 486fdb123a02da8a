import { ScanCommand, type AttributeValue, type DynamoDBClient, type ScanCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * Every item of this file's table that a Scan with `input` returns, page after page: a Scan, which
 * only a test may do (each integration file has a table of its own).
 */
export async function scanTable(
  client: DynamoDBClient,
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ ...input, TableName: process.env.TABLE_NAME, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
