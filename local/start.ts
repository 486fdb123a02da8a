/**
 * `npm start`: the whole service on http://localhost:3000 from a fresh clone.
 *
 *   DynamoDB Local (data under .data/dynamodb, so a restart loses nothing)
 *   the table, created idempotently from tables/table.yml (an older table gets its stream turned on)
 *   the stream aggregator (local/stream-aggregator.ts), folding the shared usage aggregates as the
 *     aggregator function does in AWS, its stream positions kept in .data/stream-checkpoint.json
 *   the platform emulator (local/emulator) on loopback
 *   a first super_admin and a local signing secret (kept under .data/)
 *   serverless-offline serving every route, on an internal port
 *   the gateway's response-streaming function (POST /v1/chat/completions) behind a local function URL
 *     (local/lambda-url.ts), which serverless-offline cannot run
 *   the web console (console/, built when its build is missing or stale) and the local front door on
 *   PORT: the console at /, /api and /v1 passed to serverless-offline, as CloudFront does once deployed
 *
 * With `--oidc-provider` (npm start -- --oidc-provider), also a local OpenID provider
 * (local/oidc-provider.ts) on OIDC_PROVIDER_PORT (PORT + 5), with single sign-on wired to it, for
 * trying the "Log in with SSO" button; OIDC_* set in the environment point the service at any other
 * provider instead.
 *
 * Ctrl-C stops every child. A second `npm start` while one runs says so and exits.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT,
  emulatedServiceEnv,
  localDynamoClient,
  portInUse,
  startDynamo,
  startOffline,
  startReconcileTimer,
  startStreamAggregator,
  type Dynamo,
  type Offline,
} from './runtime';
import { ensureStream, ensureTable } from '../tables/definition';
import { ensureConsoleBuilt } from '../console/scripts/build';
import { startFrontDoor } from './front-door';
import { startFunctionUrls } from './lambda-url';

const DATA = join(ROOT, '.data');
const LOCK = join(DATA, 'start.pid');
const SECRET_FILE = join(DATA, 'jwt-secret');
const PORT = Number(process.env.PORT ?? 3000);
const DYNAMO_PORT = Number(process.env.DYNAMODB_PORT ?? 8000);
const EMULATOR_PORT = Number(process.env.EMULATOR_PORT ?? 4010);
// serverless-offline sits behind the front door, on the port after PORT unless told otherwise.
const OFFLINE_PORT = Number(process.env.OFFLINE_HTTP_PORT ?? PORT + 1);
// serverless-offline's own Lambda invoke endpoint (AWS SDK Invoke), which it opens beside the HTTP one.
const LAMBDA_PORT = Number(process.env.OFFLINE_LAMBDA_PORT ?? 3002);
// The streaming function's local function URL, behind the front door.
const FUNCTION_URL_PORT = Number(process.env.FUNCTION_URL_PORT ?? PORT + 3);
const RECONCILE_INTERVAL_SECONDS = Number(process.env.RECONCILE_INTERVAL_SECONDS ?? 60);
const LOCAL_OIDC_PROVIDER = process.argv.includes('--oidc-provider');
const OIDC_PROVIDER_PORT = Number(process.env.OIDC_PROVIDER_PORT ?? PORT + 5);
const TABLE = 'model-ops-local';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function fail(message: string): never {
  console.error(`\n  ✖ ${message}\n`);
  process.exit(1);
}

async function main() {
  mkdirSync(DATA, { recursive: true });
  if (existsSync(LOCK)) {
    // The lock names the running stack's pid and port (older locks hold the pid alone).
    const text = readFileSync(LOCK, 'utf8');
    const { pid, port } = (text.trim().startsWith('{') ? JSON.parse(text) : { pid: Number(text) }) as { pid?: number; port?: number };
    if (pid && alive(pid)) {
      const where = port ? ` on http://localhost:${port}` : '';
      fail(`The service is already running (npm start, pid ${pid})${where}. Stop it with Ctrl-C in its terminal first.`);
    }
  }
  const ports = [
    [PORT, 'the API and the console', 'PORT'],
    [OFFLINE_PORT, 'serverless-offline behind the console', 'OFFLINE_HTTP_PORT'],
    [DYNAMO_PORT, 'DynamoDB Local', 'DYNAMODB_PORT'],
    [EMULATOR_PORT, 'the platform emulator', 'EMULATOR_PORT'],
    [LAMBDA_PORT, "serverless-offline's Lambda endpoint", 'OFFLINE_LAMBDA_PORT'],
    [FUNCTION_URL_PORT, 'the streaming function URL behind the console', 'FUNCTION_URL_PORT'],
    ...(LOCAL_OIDC_PROVIDER ? ([[OIDC_PROVIDER_PORT, 'the local OpenID provider', 'OIDC_PROVIDER_PORT']] as const) : []),
  ] as const;
  for (const [port, what, variable] of ports) {
    if (await portInUse(port)) fail(`Port ${port}, needed for ${what}, is already in use by another program. Free it or set ${variable}.`);
  }
  // The lock is also the stack's state: npm run user finds DynamoDB Local through it (scripts/target.ts).
  writeFileSync(LOCK, JSON.stringify({ pid: process.pid, port: PORT, dynamoPort: DYNAMO_PORT }));

  // The local signing secret is generated once and kept, so tokens survive a restart.
  if (!existsSync(SECRET_FILE)) writeFileSync(SECRET_FILE, randomBytes(64).toString('hex'), { mode: 0o600 });
  const jwtSecret = process.env.JWT_SECRET || readFileSync(SECRET_FILE, 'utf8').trim();

  const children: { stop(): Promise<void> }[] = [];
  let stopping = false;
  const shutdown = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await Promise.allSettled(children.reverse().map((c) => c.stop()));
    rmSync(LOCK, { force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());

  try {
    if ((await ensureConsoleBuilt({ quiet: true, log: (line) => console.log(line) })) === 'fresh')
      console.log('The console is built (console/dist is up to date).');
    console.log('Starting DynamoDB Local…');
    const dynamo: Dynamo = await startDynamo({ port: DYNAMO_PORT, dbPath: join(DATA, 'dynamodb') });
    children.push(dynamo);
    dynamo.process.on('exit', (code) => !stopping && (console.error(`DynamoDB Local exited (${code})`), void shutdown(1)));

    const { startEmulator } = await import('./emulator/server');
    const emulator = await startEmulator({
      port: EMULATOR_PORT,
      lifecycleDelayMs: Number(process.env.EMULATOR_LIFECYCLE_DELAY_MS ?? 5000),
      responseDelayMs: Number(process.env.EMULATOR_RESPONSE_DELAY_MS ?? 50),
      hostedApiKey: 'local-hosted-key',
    });
    children.push({ stop: () => emulator.close() });
    const sso = LOCAL_OIDC_PROVIDER ? await startLocalProvider() : undefined;
    if (sso) children.push({ stop: sso.close });

    // Anything set in the environment (a real hosted key, other VPC ids, SERVICE_CLOUD_ENDPOINT, empty
    // for real AWS) wins over the emulated wiring.
    const emulated = emulatedServiceEnv({
      dynamoEndpoint: dynamo.endpoint,
      emulatorUrl: emulator.url,
      tag: 'local',
      hostedApiKey: 'local-hosted-key',
    });
    const env: Record<string, string> = {
      ...Object.fromEntries(Object.entries(emulated).map(([k, v]) => [k, process.env[k] ?? v])),
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      EMULATOR_URL: emulator.url,
      STAGE: 'local',
      TABLE_NAME: TABLE,
      JWT_SECRET: jwtSecret,
      POWERTOOLS_DEV: 'true',
      // The reconciler runs on the interval below, not on serverless-offline's minute-grained schedule.
      RECONCILE_SCHEDULE_ENABLED: 'false',
      ...sso?.env,
    };
    Object.assign(process.env, env);

    const admin = localDynamoClient(dynamo.endpoint);
    const table = await ensureTable(admin, TABLE);
    const stream = await ensureStream(admin, TABLE);
    admin.destroy();
    console.log(`Table ${TABLE}: ${table === 'created' ? 'created' : 'already there'}${stream === 'enabled' ? ', its stream turned on' : ''}`);
    if (stream === 'enabled') {
      // A table from before the stream aggregator: its conversation listings need index entries for
      // the turns stored then (scripts/backfill-conversation-index.ts, idempotent).
      const { backfillConversationIndex } = await import('../scripts/backfill-conversation-index');
      const done = await backfillConversationIndex();
      console.log(`Conversation index: ${done.entries} entries written for ${done.conversations} conversations stored before it existed`);
    }
    console.log('Starting the stream aggregator…');
    const aggregator = await startStreamAggregator({ env, checkpointFile: join(DATA, 'stream-checkpoint.json'), inheritOutput: true });
    children.push(aggregator);
    aggregator.process.on('exit', (code) => !stopping && (console.error(`the stream aggregator exited (${code})`), void shutdown(1)));

    const { seedSuperAdmin } = await import('./seed');
    const seeded = await seedSuperAdmin();
    if (seeded.created) {
      console.log(`\nCreated the first super_admin "${seeded.username}".`);
      if (seeded.generatedPassword) {
        console.log(`  Generated password (shown this once, change it with npm run user -- reset-password): ${seeded.generatedPassword}\n`);
      }
    }

    console.log('Starting serverless-offline (bundling the functions)…');
    const offline: Offline = await startOffline({
      port: OFFLINE_PORT,
      lambdaPort: LAMBDA_PORT,
      stage: 'local',
      env,
      inheritOutput: true,
    });
    children.push(offline);
    offline.process.on('exit', (code) => !stopping && (console.error(`serverless-offline exited (${code})`), void shutdown(1)));
    const functionUrls = await startFunctionUrls({ port: FUNCTION_URL_PORT });
    children.push({ stop: () => functionUrls.close() });
    const frontDoor = await startFrontDoor({ port: PORT, apiUrl: offline.url, functionUrls: functionUrls.routes });
    children.push({ stop: () => frontDoor.close() });
    if (Number.isFinite(RECONCILE_INTERVAL_SECONDS) && RECONCILE_INTERVAL_SECONDS > 0) {
      children.push(
        startReconcileTimer({
          lambdaUrl: `http://127.0.0.1:${LAMBDA_PORT}`,
          functionName: 'model-ops-local-reconcile',
          intervalSeconds: RECONCILE_INTERVAL_SECONDS,
          log: (line) => console.log(line),
        }),
      );
    }

    console.log(`\n  ✔ Model Operations Service is up on http://localhost:${PORT}`);
    console.log(`    Console http://localhost:${PORT}/  ·  API http://localhost:${PORT}/api (serverless-offline on ${OFFLINE_PORT})`);
    console.log(`    DynamoDB Local ${dynamo.endpoint}  ·  platform emulator ${emulator.url}  ·  data in .data/`);
    console.log(
      RECONCILE_INTERVAL_SECONDS > 0
        ? `    Reconciler every ${RECONCILE_INTERVAL_SECONDS} s (RECONCILE_INTERVAL_SECONDS; 0 turns it off)`
        : '    Reconciler off (RECONCILE_INTERVAL_SECONDS=0)',
    );
    console.log(
      `    Log in: curl -s -X POST http://localhost:${PORT}/api/auth/login -H 'Content-Type: application/json' -d '{"username":"${seeded.username}","password":"…"}'`,
    );
    if (sso) {
      console.log(`    Single sign-on: "Log in with SSO" goes to the local OpenID provider ${sso.issuer}; log in there as`);
      console.log('      name or name:group,group (any password): mo-super-admins and mo-admins give roles, team-<name> joins a team');
    }
    console.log('    Ctrl-C stops everything.\n');
  } catch (err) {
    console.error(`\n  ✖ ${(err as Error).message}\n`);
    await shutdown(1);
  }
}

/**
 * The local OpenID provider and the settings that point single sign-on at it (any OIDC_* already set
 * in the environment wins). Its client secret is new on every start, like the provider itself.
 */
async function startLocalProvider() {
  const { startOidcProvider } = await import('./oidc-provider');
  const clientSecret = randomBytes(24).toString('base64url');
  const redirectUrl = `http://localhost:${PORT}/api/auth/oidc/callback`;
  const provider = await startOidcProvider({
    port: OIDC_PROVIDER_PORT,
    clients: [{ client_id: 'model-ops-local', client_secret: clientSecret, redirect_uris: [redirectUrl] }],
  });
  const wanted: Record<string, string> = {
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: 'model-ops-local',
    OIDC_CLIENT_SECRET: clientSecret,
    OIDC_REDIRECT_URL: redirectUrl,
    OIDC_SCOPES: 'openid email profile groups',
    OIDC_ADMIN_GROUPS: 'mo-admins',
    OIDC_SUPER_ADMIN_GROUPS: 'mo-super-admins',
    OIDC_TEAM_GROUPS_PREFIX: 'team-',
  };
  const env = Object.fromEntries(Object.entries(wanted).map(([k, v]) => [k, process.env[k] || v]));
  return { issuer: provider.issuer, close: () => provider.close(), env };
}

void main();
