/**
 * The shared runtime of one test run, started by tests/setup/global-setup.js as a child process:
 * DynamoDB Local in memory, the platform emulator (lifecycle delays 0) and, for e2e, serverless-offline
 * on a table of its own with a seeded super_admin. Everything on free loopback ports. It prints one
 * `READY {json}` line and runs until its stdin closes or it is signalled.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { freePort, startDynamo, startOffline, type Offline } from '../../local/runtime';
import { ensureTable } from '../../tables/definition';
import { startEmulator } from '../../local/emulator/server';

const withOffline = process.argv.includes('--e2e');
const stops: (() => Promise<void>)[] = [];
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await Promise.allSettled(stops.reverse().map((s) => s()));
  process.exitCode ??= 0;
  process.exit();
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();

async function main() {
  const dynamo = await startDynamo({ port: await freePort() });
  stops.push(() => dynamo.stop());
  const emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, responseDelayMs: 0, hostedApiKey: 'test-hosted-key' });
  stops.push(() => emulator.close());

  const env: Record<string, string> = {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
    JWT_SECRET: randomBytes(48).toString('hex'),
    SERVICE_CLOUD_ENDPOINT: emulator.url,
    SERVICE_CLOUD_REGION: 'us-east-1',
    SERVICE_CLOUD_ACCESS_KEY_ID: 'AKIATESTEMULATOR0001',
    SERVICE_CLOUD_SECRET_ACCESS_KEY: 'test-emulator-secret-access-key-0001',
    DEDICATED_EXECUTION_ROLE_ARN: 'arn:aws:iam::123456789012:role/model-ops-test-sagemaker',
    DEDICATED_SUBNET_IDS: 'subnet-0test00000000001,subnet-0test00000000002',
    DEDICATED_SECURITY_GROUP_IDS: 'sg-0test000000000001',
    HOSTED_API_KEY: 'test-hosted-key',
    HOSTED_BASE_URL: `${emulator.url}/v1`,
    EMULATOR_URL: emulator.url,
    UPSTREAM_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  };

  let offline: Offline | undefined;
  if (withOffline) {
    const table = 'model-ops-e2e';
    const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, table);
    const adminPassword = randomBytes(12).toString('base64url');
    Object.assign(process.env, env, { TABLE_NAME: table, ADMIN_USERNAME: 'e2e-admin', ADMIN_EMAIL: 'e2e-admin@example.com', ADMIN_PASSWORD: adminPassword, BCRYPT_COST: '10' });
    const { seedSuperAdmin } = await import('../../local/seed');
    await seedSuperAdmin();
    offline = await startOffline({
      port: await freePort(),
      lambdaPort: await freePort(),
      stage: 'e2e',
      env: { ...env, TABLE_NAME: table, STAGE: 'e2e', BCRYPT_COST: '10' },
    });
    stops.push(() => (offline as Offline).stop());
    Object.assign(env, { E2E_BASE_URL: offline.url, E2E_TABLE_NAME: table, E2E_ADMIN_USERNAME: 'e2e-admin', E2E_ADMIN_PASSWORD: adminPassword });
}

console.log(`READY ${JSON.stringify(env)}`);
}

// Anything that fails during start-up stops what was already started: no orphaned Java processes.
main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
  void stop();
});
