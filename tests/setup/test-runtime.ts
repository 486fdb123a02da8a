/**
 * The shared runtime of one test run, started by tests/setup/global-setup.js as a child process:
 * DynamoDB Local in memory, the platform emulator (lifecycle delays 0) and, for e2e, serverless-offline
 * on a table of its own with a seeded super_admin and the stream aggregator polling that table, and, for
 * the browser tests (`--console`), the built console behind the local front door (local/front-door.ts)
 * in front of that serverless-offline. Everything on free loopback ports. It prints one `READY {json}`
 * line and runs until its stdin closes or it is signalled.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ROOT,
  emulatedServiceEnv,
  freePort,
  secretsAsParameters,
  localDynamoClient,
  startDynamo,
  startOffline,
  stopInReverse,
  type Offline,
} from '../../local/runtime';
import { ensureTable } from '../../tables/definition';
import { startEmulator } from '../../local/emulator/server';
import { startFrontDoor } from '../../local/front-door';
import { startFunctionUrls } from '../../local/lambda-url';
import { startOidcProvider } from '../../local/oidc-provider';
import { ensureConsoleBuilt } from '../../console/scripts/build';
import { chromiumAvailable, launchChromiumServer } from '../../console/scripts/chromium';

/**
 * Single sign-on in the tests: one loopback OpenID provider per run with two clients, the e2e
 * serverless-offline's (its redirect URL on the front door the sign-in goes through: the console's
 * when the browser tests run, else the API-only one) and the integration tests' (whose callbacks are
 * handed to the handler in process, so its redirect URL is never fetched).
 */
const OIDC_SCOPES = 'openid email profile groups';

/**
 * bcrypt's lowest cost, as in the jest workers (global-setup.js): every e2e and browser sign-in and
 * user creation goes through the real hashing, and the cost factor only multiplies its CPU (2^6
 * times more at the deployed default of 10: some 120 ms a hash in bcryptjs, paid by the shared cores).
 */
const E2E_BCRYPT_COST = '4';
const TEST_OIDC = {
  e2eClient: 'model-ops-e2e',
  itClient: 'model-ops-it',
  itRedirectUrl: 'http://localhost:9/api/auth/oidc/callback',
  adminGroups: 'mo-admins',
  superAdminGroups: 'mo-super-admins',
  teamPrefix: 'team-',
};

/** `--emulator-only`: the unit and build projects talk to the emulator and nothing else (global-setup.js). */
const emulatorOnly = process.argv.includes('--emulator-only');
const withConsole = process.argv.includes('--console');
const withOffline = withConsole || process.argv.includes('--e2e');
/**
 * `--dynamo-instances=N`: N DynamoDB Locals, one per jest worker of the integration files (each file
 * picks its worker's: tests/setup/table-env.ts). One DynamoDB Local answers one request at a time, so a
 * file that sends thousands of requests one after the other (the fuzz) otherwise waits in line behind
 * the other worker's hundreds of concurrent ones.
 */
const dynamoInstances = Math.max(
  1,
  Number(/^--dynamo-instances=(\d+)$/.exec(process.argv.find((a) => a.startsWith('--dynamo-instances=')) ?? '')?.[1] ?? 1),
);
const stops: (() => Promise<void>)[] = [];
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await stopInReverse(stops.map((stop) => ({ stop })));
  process.exitCode ??= 0;
  process.exit();
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();

async function main() {
  // The console builds (when stale) while DynamoDB Local starts.
  const consoleBuilt = withConsole ? ensureConsoleBuilt({ quiet: true }) : undefined;
  consoleBuilt?.catch(() => undefined);
  const emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, responseDelayMs: 0, hostedApiKey: 'test-hosted-key' });
  stops.push(() => emulator.close());
  // A database per access key: each integration file works in one of its own (tests/setup/table-env.ts),
  // the e2e stack in the default key's.
  const dynamos = emulatorOnly
    ? []
    : await Promise.all(Array.from({ length: dynamoInstances }, async () => startDynamo({ port: await freePort(), databasePerKey: true })));
  for (const d of dynamos) stops.push(() => d.stop());
  const dynamo = dynamos[0];

  const env: Record<string, string> = {
    ...emulatedServiceEnv({
      // No database: a test that reaches for one is refused at once (port 9, discard) instead of hanging.
      dynamoEndpoint: dynamo?.endpoint ?? 'http://127.0.0.1:9',
      emulatorUrl: emulator.url,
      tag: 'test',
      hostedApiKey: 'test-hosted-key',
      lifecycleDelayMs: 0,
    }),
    // Every DynamoDB Local of the run; DYNAMODB_ENDPOINT is the first (the e2e stack's, and any file's by default).
    DYNAMODB_ENDPOINTS: dynamos.map((d) => d.endpoint).join(','),
    JWT_SECRET: randomBytes(48).toString('hex'),
    UPSTREAM_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  if (!dynamo) {
    console.log(`READY ${JSON.stringify(env)}`);
    return;
  }

  // The front door the e2e sign-in goes through is chosen now: the provider must know its redirect URL.
  const [gatewayDoorPort, consoleDoorPort] = [await freePort(), await freePort()];
  const oidcOrigin = `http://127.0.0.1:${withConsole ? consoleDoorPort : gatewayDoorPort}`;
  const oidcSecrets = { e2e: randomBytes(24).toString('base64url'), it: randomBytes(24).toString('base64url') };
  const oidc = await startOidcProvider({
    port: await freePort(),
    clients: [
      { client_id: TEST_OIDC.e2eClient, client_secret: oidcSecrets.e2e, redirect_uris: [`${oidcOrigin}/api/auth/oidc/callback`] },
      { client_id: TEST_OIDC.itClient, client_secret: oidcSecrets.it, redirect_uris: [TEST_OIDC.itRedirectUrl] },
    ],
  });
  stops.push(() => oidc.close());
  // What the integration tests set as OIDC_* when they turn single sign-on on (tests/integration/sso.test.ts).
  Object.assign(env, {
    TEST_OIDC_ISSUER: oidc.issuer,
    TEST_OIDC_CLIENT_ID: TEST_OIDC.itClient,
    TEST_OIDC_CLIENT_SECRET: oidcSecrets.it,
    TEST_OIDC_REDIRECT_URL: TEST_OIDC.itRedirectUrl,
  });

  let offline: Offline | undefined;
  if (withOffline) {
    const table = 'model-ops-e2e';
    await ensureTable(localDynamoClient(dynamo.endpoint), table);
    const adminPassword = randomBytes(12).toString('base64url');
    Object.assign(process.env, env, {
      TABLE_NAME: table,
      ADMIN_USERNAME: 'e2e-admin',
      ADMIN_EMAIL: 'e2e-admin@example.com',
      ADMIN_PASSWORD: adminPassword,
      BCRYPT_COST: E2E_BCRYPT_COST,
    });
    const { seedSuperAdmin } = await import('../../local/seed');
    await seedSuperAdmin();
    const lambdaPort = await freePort();
    // The stream aggregator and the alert deliverer over the e2e table, as `npm start` runs them
    // beside serverless-offline (each with stream positions of its own), polling four times a second
    // as Lambda does. The aggregator polled every 100 ms here before: on an idle table that cost its
    // process and DynamoDB Local 2.5 CPU-s every 30 s against 1.5, some 9 CPU-s over a test run.
    const [{ handler }, { handler: deliverAlerts }, { startStreamPoller, alertsEventSource }] = await Promise.all([
      import('../../functions/usage/aggregate'),
      import('../../functions/alerts/deliver'),
      import('../../local/stream-poller'),
    ]);
    const streamClient = localDynamoClient(dynamo.endpoint);
    const pollers = [
      startStreamPoller({ dynamo: streamClient, endpoint: dynamo.endpoint, table, handler }),
      startStreamPoller({
        dynamo: streamClient,
        endpoint: dynamo.endpoint,
        table,
        handler: deliverAlerts,
        settings: alertsEventSource(),
      }),
    ];
    stops.push(async () => {
      await Promise.all(pollers.map((p) => p.stop()));
      streamClient.destroy();
    });
    const workFolder = `.esbuild-offline-e2e-${process.pid}`;
    offline = await startOffline({
      port: await freePort(),
      lambdaPort,
      stage: 'e2e',
      idleSeconds: 3600,
      // The reconciler runs when a test invokes it (E2E_LAMBDA_URL), never on offline's own schedule.
      env: {
        // The hosted API key and the platforms' secret key from the emulator's SSM, as in a deploy.
        ...secretsAsParameters(env, emulator.options.parameters, 'e2e'),
        TABLE_NAME: table,
        STAGE: 'e2e',
        // Bundles of this run's own: a second e2e run in the same checkout (a file run by hand beside
        // npm test) rebuilds into its own folder instead of deleting the chunks this stack serves.
        ESBUILD_WORK_FOLDER: workFolder,
        BCRYPT_COST: E2E_BCRYPT_COST,
        RECONCILE_SCHEDULE_ENABLED: 'false',
        // The shared emulator holds every test file's endpoints: a pass classifies them quickly.
        RECONCILE_PLATFORM_CALLS_PER_SECOND: '100',
        OIDC_ISSUER: oidc.issuer,
        OIDC_CLIENT_ID: TEST_OIDC.e2eClient,
        OIDC_CLIENT_SECRET: oidcSecrets.e2e,
        OIDC_REDIRECT_URL: `${oidcOrigin}/api/auth/oidc/callback`,
        OIDC_SCOPES,
        OIDC_ADMIN_GROUPS: TEST_OIDC.adminGroups,
        OIDC_SUPER_ADMIN_GROUPS: TEST_OIDC.superAdminGroups,
        OIDC_TEAM_GROUPS_PREFIX: TEST_OIDC.teamPrefix,
      },
    });
    stops.push(async () => {
      await (offline as Offline).stop();
      await rm(join(ROOT, workFolder), { recursive: true, force: true });
    });
    // The front door as the deploy's CloudFront: POST /v1/chat/completions to the streaming function's
    // URL (local/lambda-url.ts), everything else to serverless-offline.
    const functionUrls = await startFunctionUrls();
    stops.push(() => functionUrls.close());
    const gatewayDoor = await startFrontDoor({ port: gatewayDoorPort, apiUrl: offline.url, root: false, functionUrls: functionUrls.routes });
    stops.push(() => gatewayDoor.close());
    Object.assign(env, {
      E2E_BASE_URL: offline.url,
      E2E_FRONT_DOOR_URL: gatewayDoor.url,
      E2E_LAMBDA_URL: `http://127.0.0.1:${lambdaPort}`,
      E2E_TABLE_NAME: table,
      E2E_ADMIN_USERNAME: 'e2e-admin',
      E2E_ADMIN_PASSWORD: adminPassword,
      // Single sign-on, e2e: the provider, and the origin the flow starts and ends on.
      E2E_OIDC_ISSUER: oidc.issuer,
      E2E_OIDC_ORIGIN: oidcOrigin,
      E2E_OIDC_CLIENT_SECRET: oidcSecrets.e2e,
    });
    if (withConsole) {
      await consoleBuilt;
      const frontDoor = await startFrontDoor({ port: consoleDoorPort, apiUrl: offline.url, functionUrls: functionUrls.routes });
      stops.push(() => frontDoor.close());
      env.E2E_CONSOLE_URL = frontDoor.url;
      // One Chromium for the browser files, each in a context of its own (console/scripts/chromium.ts).
      if (chromiumAvailable()) {
        const chromiumServer = await launchChromiumServer();
        stops.push(() => chromiumServer.close());
        env.CHROMIUM_WS_ENDPOINT = chromiumServer.wsEndpoint();
      }
    }
  }

  console.log(`READY ${JSON.stringify(env)}`);
}

// Anything that fails during start-up stops what was already started: no orphaned Java processes.
main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
  void stop();
});
