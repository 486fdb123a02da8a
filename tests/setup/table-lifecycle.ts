import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../tables/definition';

const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

beforeAll(async () => {
  await ensureTable(client, process.env.TABLE_NAME as string);
}, 60_000);

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME })).catch(() => undefined);
  client.destroy();
});
