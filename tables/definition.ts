import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type StreamViewType,
} from '@aws-sdk/client-dynamodb';
import { parse } from 'yaml';

/**
 * Creates a local table from tables/table.yml, the very resource serverless.yml deploys. Only the
 * key schema, indexes, billing mode, stream and TTL are taken; the stage settings (deletion protection,
 * point-in-time recovery) mean nothing to DynamoDB Local. Used by `npm start`, the tests and the
 * benchmarks; never bundled into a function.
 */
const here = dirname(fileURLToPath(import.meta.url));

interface TableResource {
  Properties: Pick<CreateTableCommandInput, 'AttributeDefinitions' | 'KeySchema' | 'GlobalSecondaryIndexes' | 'BillingMode'> & {
    TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
    StreamSpecification?: { StreamViewType: StreamViewType };
  };
}

function tableDefinition(): TableResource['Properties'] {
  // The file carries serverless variables (${...}); YAML parses them as plain strings, which is fine
  // because none of the properties read here uses one.
  const resource = parse(readFileSync(join(here, 'table.yml'), 'utf8')) as TableResource;
  return resource.Properties;
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  const { AttributeDefinitions, KeySchema, GlobalSecondaryIndexes, BillingMode, TimeToLiveSpecification, StreamSpecification } = tableDefinition();
  const stream = StreamSpecification ? { StreamEnabled: true, StreamViewType: StreamSpecification.StreamViewType } : undefined;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions,
        KeySchema,
        GlobalSecondaryIndexes,
        BillingMode,
        StreamSpecification: stream,
      }),
    );
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

/**
 * Turns the table's stream on if it is off: a table created before the definition had one (an older
 * .data/ under `npm start`) gets it, so the stream aggregator can run over it. Records start from now.
 */
export async function ensureStream(client: DynamoDBClient, tableName: string): Promise<'enabled' | 'already'> {
  const { StreamSpecification } = tableDefinition();
  if (!StreamSpecification) return 'already';
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled) return 'already';
  await client.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: StreamSpecification.StreamViewType },
    }),
  );
  return 'enabled';
}
