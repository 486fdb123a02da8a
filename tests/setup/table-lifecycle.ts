import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/runtime';
import { ensureTable } from '../../tables/definition';

const client = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);

beforeAll(async () => {
  await ensureTable(client, process.env.TABLE_NAME as string);
}, 60_000);

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME })).catch(() => undefined);
  client.destroy();
});
