import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { parse } from 'yaml';

/**
 * Creates a local table from tables/table.yml, the very resource serverless.yml deploys. Only the
 * key schema, indexes, billing mode and TTL are taken; the stage settings (deletion protection,
 * point-in-time recovery) mean nothing to DynamoDB Local. Used by `npm start`, the tests and the
 * benchmarks; never bundled into a function.
 */
const here = dirname(fileURLToPath(import.meta.url));

interface TableResource {
  Properties: Pick<CreateTableCommandInput, 'AttributeDefinitions' | 'KeySchema' | 'GlobalSecondaryIndexes' | 'BillingMode'> & {
    TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
  };
}

export function tableDefinition(): TableResource['Properties'] {
  // The file carries serverless variables (${...}); YAML parses them as plain strings, which is fine
  // because none of the properties read here uses one.
  const resource = parse(readFileSync(join(here, 'table.yml'), 'utf8')) as TableResource;
  return resource.Properties;
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  const { AttributeDefinitions, KeySchema, GlobalSecondaryIndexes, BillingMode, TimeToLiveSpecification } = tableDefinition();
  try {
    await client.send(new CreateTableCommand({ TableName: tableName, AttributeDefinitions, KeySchema, GlobalSecondaryIndexes, BillingMode }));
  } catch (err) {
    if (err instanceof ResourceInUseException) return 'exists';
    throw err;
  }
  for (let i = 0; i < 100; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (TimeToLiveSpecification) {
    await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification }));
  }
  return 'created';
}
