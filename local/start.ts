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
 * Ctrl-C stops every child, and so does the end of this process however it comes (every child has
 * a lifeline: local/runtime.ts). A second `npm start` while one runs says so and exits; ports taken by
 * other programs are named all at once, with the variables that move them.
 *
 * The terminal stays quiet: a few lines while it starts, the banner with the login last, then one line
 * per API request. `npm start -- --verbose` shows every function's JSON log (Powertools, LOG_LEVEL
 * INFO) and serverless-offline's own lines; LOG_LEVEL alone sets the functions' level.
 *
 * With `--oidc-provider` (npm start -- --oidc-provider), also a local OpenID provider
 * (local/oidc-provider.ts) on OIDC_PROVIDER_PORT (PORT + 5), with single sign-on wired to it, for
 * trying the "Log in with SSO" button; OIDC_* set in the environment point the service at any other
 * provider instead.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  ROOT,
  emulatedServiceEnv,
  secretsAsParameters,
  localDynamoClient,
  portInUse,
  startDynamo,
  startOffline,
  startReconcileTimer,
  startStreamAggregator,
  stopInReverse,
  type Dynamo,
  type Offline,
} from './runtime';
import { ensureStream, ensureTable } from '../tables/definition';
import { ensureConsoleBuilt } from '../console/scripts/build';
import { startFrontDoor } from './front-door';
import { startFunctionUrls } from './lambda-url';
import { portClashMessage, requestLine, suggestFreePorts, upBanner, type PortNeed } from './terminal';

// DATA_DIR moves the stack's state elsewhere (the tests start a stack of their own this way).
const DATA = resolve(ROOT, process.env.DATA_DIR || '.data');
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
const VERBOSE = process.argv.includes('--verbose');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function fail(message: string): never {
  console.error(`\n  ${message.startsWith('✖') ? message : `✖ ${message}`}\n`);
  process.exit(1);
}

/** Every port the stack needs that another program holds, named in one message with the variables that move them. */
async function checkPorts() {
  const needs: PortNeed[] = [
    { port: PORT, what: 'the API and the console', variable: 'PORT' },
    { port: OFFLINE_PORT, what: 'serverless-offline behind the console', variable: 'OFFLINE_HTTP_PORT' },
    { port: DYNAMO_PORT, what: 'DynamoDB Local', variable: 'DYNAMODB_PORT' },
    { port: EMULATOR_PORT, what: 'the platform emulator', variable: 'EMULATOR_PORT' },
    { port: LAMBDA_PORT, what: "serverless-offline's Lambda endpoint", variable: 'OFFLINE_LAMBDA_PORT' },
    { port: FUNCTION_URL_PORT, what: 'the streaming function URL behind the console', variable: 'FUNCTION_URL_PORT' },
    ...(LOCAL_OIDC_PROVIDER ? [{ port: OIDC_PROVIDER_PORT, what: 'the local OpenID provider', variable: 'OIDC_PROVIDER_PORT' }] : []),
  ];
  const taken = await Promise.all(needs.map((n) => portInUse(n.port)));
  const busy = needs.filter((_, i) => taken[i]);
  if (busy.length === 0) return;
  // serverless-offline and the function URL move with PORT unless their own variables are set.
  const derived = { PORT: [...(process.env.OFFLINE_HTTP_PORT ? [] : [1]), ...(process.env.FUNCTION_URL_PORT ? [] : [3])] };
  fail(portClashMessage(busy, await suggestFreePorts(needs, busy, portInUse, derived)));
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
  await checkPorts();
  // The lock is also the stack's state: npm run user finds DynamoDB Local through it (scripts/target.ts).
  writeFileSync(LOCK, JSON.stringify({ pid: process.pid, port: PORT, dynamoPort: DYNAMO_PORT }));

  // The local signing secret is generated once and kept, so tokens survive a restart.
  if (!existsSync(SECRET_FILE)) writeFileSync(SECRET_FILE, randomBytes(64).toString('hex'), { mode: 0o600 });
  const jwtSecret = process.env.JWT_SECRET || readFileSync(SECRET_FILE, 'utf8').trim();

  const children: { stop(): Promise<void> }[] = [];
  let generated: { username: string; password: string } | undefined;
  let stopping = false;
  const shutdown = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await stopInReverse(children);
    rmSync(LOCK, { force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  // npm start runs this under tsx's launcher: if that is killed outright, this process is adopted by
  // another and stops everything too, rather than serving on with nobody to press Ctrl-C.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown(1);
  }, 1000).unref();

  try {
    if ((await ensureConsoleBuilt({ quiet: true, log: (line) => console.log(line) })) === 'fresh')
      console.log('The console is built (console/dist is up to date).');
    const { startEmulator } = await import('./emulator/server');
    const lifecycleDelayMs = Number(process.env.EMULATOR_LIFECYCLE_DELAY_MS ?? 5000);
    const emulator = await startEmulator({
      port: EMULATOR_PORT,
      lifecycleDelayMs,
      responseDelayMs: Number(process.env.EMULATOR_RESPONSE_DELAY_MS ?? 50),
      hostedApiKey: 'local-hosted-key',
      // The emulated platforms are kept beside the table: a restart changes nothing on either.
      stateFile: join(DATA, 'emulator-state.json'),
    });
    children.push({ stop: () => emulator.close() });
    const sso = LOCAL_OIDC_PROVIDER ? await startLocalProvider() : undefined;
    if (sso) children.push({ stop: sso.close });

    // DynamoDB Local's address is known before it starts (startDynamo listens on this port, loopback).
    const dynamoEndpoint = `http://127.0.0.1:${DYNAMO_PORT}`;
    // Anything set in the environment (a real hosted key, other VPC ids, SERVICE_CLOUD_ENDPOINT, empty
    // for real AWS) wins over the emulated wiring.
    const emulated = emulatedServiceEnv({
      dynamoEndpoint,
      emulatorUrl: emulator.url,
      tag: 'local',
      hostedApiKey: 'local-hosted-key',
      lifecycleDelayMs,
    });
    const env: Record<string, string> = {
      ...Object.fromEntries(Object.entries(emulated).map(([k, v]) => [k, process.env[k] ?? v])),
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      EMULATOR_URL: emulator.url,
      STAGE: 'local',
      TABLE_NAME: TABLE,
      JWT_SECRET: jwtSecret,
      POWERTOOLS_DEV: 'true',
      // Quiet by default: warnings and errors only, each request being one line of the front door's.
      LOG_LEVEL: process.env.LOG_LEVEL || (VERBOSE ? 'INFO' : 'WARN'),
      // The reconciler runs on the interval below, not on serverless-offline's minute-grained schedule.
      RECONCILE_SCHEDULE_ENABLED: 'false',
      ...sso?.env,
    };
    // Against the real platforms the emulator's delay says nothing of how long a change takes.
    if (env.SERVICE_CLOUD_ENDPOINT !== emulator.url && !process.env.DEDICATED_STATE_CHANGE_SECONDS) delete env.DEDICATED_STATE_CHANGE_SECONDS;
    Object.assign(process.env, env);

    // The database and the API start side by side: serverless-offline (the framework, then one build of
    // every function) needs nothing of DynamoDB Local until a request comes, and each takes seconds.
    const database = (async () => {
      console.log('Starting DynamoDB Local…');
      const dynamo: Dynamo = await startDynamo({ port: DYNAMO_PORT, dbPath: join(DATA, 'dynamodb') });
      children.push(dynamo);
      dynamo.process.on('exit', (code) => !stopping && (console.error(`DynamoDB Local exited (${code})`), void shutdown(1)));
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
      // The login is printed last, in the banner, where nothing scrolls it away.
      const seeded = await seedSuperAdmin();
      if (seeded.generatedPassword) generated = { username: seeded.username, password: seeded.generatedPassword };
      if (seeded.created) console.log(`Created the first super_admin "${seeded.username}" (its login is below once everything is up).`);
      return { dynamo, seeded };
    })();
    const api = (async () => {
      console.log('Starting serverless-offline (bundling the functions)…');
      const offline: Offline = await startOffline({
        port: OFFLINE_PORT,
        lambdaPort: LAMBDA_PORT,
        stage: 'local',
        // The hosted API key and the platforms' secret key from the emulator's SSM, as in a deploy.
        env: secretsAsParameters(env, emulator.options.parameters, 'local'),
        inheritOutput: true,
        quiet: !VERBOSE,
      });
      children.push(offline);
      offline.process.on('exit', (code) => !stopping && (console.error(`serverless-offline exited (${code})`), void shutdown(1)));
      return offline;
    })();
    // Both run to their end before a failure is reported, so nothing is left starting behind the shutdown.
    const [started, offlineStarted] = await Promise.allSettled([database, api]);
    if (started.status === 'rejected') throw started.reason;
    if (offlineStarted.status === 'rejected') throw offlineStarted.reason;
    const { dynamo, seeded } = started.value;
    const offline = offlineStarted.value;
    const functionUrls = await startFunctionUrls({ port: FUNCTION_URL_PORT });
    children.push({ stop: () => functionUrls.close() });
    const frontDoor = await startFrontDoor({
      port: PORT,
      apiUrl: offline.url,
      functionUrls: functionUrls.routes,
      onApiRequest: (r) => console.log(requestLine(r)),
    });
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

    if (sso) {
      console.log(`Single sign-on: "Log in with SSO" goes to the local OpenID provider ${sso.issuer}; log in there as`);
      console.log('  name or name:group,group (any password): mo-super-admins and mo-admins give roles, team-<name> joins a team');
    }
    const dataDir = relative(ROOT, DATA).startsWith('..') ? DATA : `${relative(ROOT, DATA) || '.'}/`;
    console.log(
      upBanner({
        url: `http://localhost:${PORT}`,
        dynamoEndpoint: dynamo.endpoint,
        emulatorUrl: emulator.url,
        dataDir,
        reconcileSeconds: RECONCILE_INTERVAL_SECONDS,
        verbose: VERBOSE,
        admin: { username: seeded.username, generatedPassword: seeded.generatedPassword, chosenPassword: Boolean(process.env.ADMIN_PASSWORD) },
      }),
    );
  } catch (err) {
    console.error(`\n  ✖ ${(err as Error).message}\n`);
    // A password generated on a start that then failed is still the admin's: this is its one showing.
    if (generated)
      console.error(`  The first super_admin "${generated.username}" was created with the password ${generated.password} (shown only now).\n`);
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
