/**
 * A real `npm start`, as a person runs it, for the sections that measure the local stack itself
 * (start time, the gateway beside Portkey): `npm start` in a checkout, with ports of its own, its state
 * in a data folder of its own (DATA_DIR) and its bundles in a work folder of its own
 * (ESBUILD_WORK_FOLDER), so a developer's `npm start` in the same checkout is never disturbed. Its
 * environment is what a shell has plus what is passed: nothing of the bench process's configuration.
 *
 * It is stopped as Ctrl-C stops it (SIGINT to its process group), and whatever is left of its
 * process tree after that is killed and counted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../local/runtime';
import { commandLine, cpuByRole, onCleanup, processTree, type ProcessRole } from './harness';

export interface StackPorts {
  PORT: number;
  OFFLINE_HTTP_PORT: number;
  OFFLINE_LAMBDA_PORT: number;
  FUNCTION_URL_PORT: number;
  DYNAMODB_PORT: number;
  EMULATOR_PORT: number;
}

async function freeStackPorts(): Promise<StackPorts> {
  const names = ['PORT', 'OFFLINE_HTTP_PORT', 'OFFLINE_LAMBDA_PORT', 'FUNCTION_URL_PORT', 'DYNAMODB_PORT', 'EMULATOR_PORT'] as const;
  const ports = {} as StackPorts;
  for (const name of names) ports[name] = await freePort();
  return ports;
}

export interface RunningStack {
  ports: StackPorts;
  /** The front door (console, /api, /v1). */
  url: string;
  /** serverless-offline's own HTTP port (what the front door passes /api and /v1 to). */
  offlineUrl: string;
  emulatorUrl: string;
  child: ChildProcess;
  /** Milliseconds from the spawn of `npm start` to the first answer of a function through the front door. */
  answeredMs: number;
  /** Each line it printed, with the milliseconds since the spawn. */
  lines: { ms: number; text: string }[];
  output(): string;
  /** Stops it as Ctrl-C does; resolves with how long that took and how many processes had to be killed after. */
  stop(): Promise<{ stopMs: number; leftovers: number }>;
}

/** What a stack's processes are, for CPU accounting (bench/harness.ts cpuByRole). */
export const STACK_ROLES: ProcessRole[] = [
  { name: 'DynamoDB Local (JVM)', test: (cmd) => cmd.includes('DynamoDBLocal.jar') },
  { name: 'serverless-offline (server, workers, esbuild)', test: (cmd) => cmd.includes('serverless.js') && cmd.includes('offline') },
  { name: 'stream poller', test: (cmd) => cmd.includes('stream-aggregator.ts') },
  {
    name: 'npm start process (front door, function URL, emulator)',
    test: (cmd) => cmd.includes('local/start.ts') && !cmd.includes('cli.mjs') && !cmd.startsWith('npm'),
  },
];
export const LAUNCHERS = 'npm and tsx launchers';

export function stackCpu(stack: RunningStack): Map<string, number> {
  return cpuByRole(stack.child.pid as number, STACK_ROLES, LAUNCHERS);
}

/**
 * Runs `npm start` in `root` and resolves once a function answers through the front door
 * (GET /api/openapi.json: 200). `env` is added to a shell's environment (PATH, HOME, TMPDIR, LANG).
 */
export async function startStack(options: {
  root: string;
  dataDir: string;
  workFolder: string;
  env?: Record<string, string>;
  ports?: StackPorts;
  timeoutMs?: number;
}): Promise<RunningStack> {
  const ports = options.ports ?? (await freeStackPorts());
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: options.root,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? options.root,
      LANG: process.env.LANG ?? 'C.UTF-8',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      ...(process.env.JAVA_HOME ? { JAVA_HOME: process.env.JAVA_HOME } : {}),
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      DATA_DIR: options.dataDir,
      ESBUILD_WORK_FOLDER: options.workFolder,
      ...options.env,
    },
    // Its own process group, so SIGINT reaches npm and everything under it, as Ctrl-C does.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const lines: { ms: number; text: string }[] = [];
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    output = (output + d.toString()).slice(-30_000);
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    const ms = performance.now() - started;
    for (const text of parts) if (text.trim() && lines.length < 5000) lines.push({ ms, text });
  });
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-30_000)));
  const kill = () => {
    for (const pid of processTree(child.pid as number).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  const unregister = onCleanup('npm start', async () => {
    await stop();
  });

  let stopped: Promise<{ stopMs: number; leftovers: number }> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      const t = performance.now();
      const tree = processTree(child.pid as number);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((done) => child.once('exit', () => done()));
        try {
          process.kill(-(child.pid as number), 'SIGINT');
        } catch {
          // gone
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
      }
      const stopMs = performance.now() - t;
      // Give the children a moment to see their lifelines close, then count what is left.
      await new Promise((r) => setTimeout(r, 1000));
      // A process that has exited but is not yet reaped (a zombie: state Z, no command line) is gone.
      const running = (pid: number) => {
        try {
          return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
        } catch {
          return false;
        }
      };
      const leftovers = tree.filter(running);
      for (const pid of leftovers) {
        process.stderr.write(`  left running after npm start stopped: ${pid} ${commandLine(pid).slice(0, 200)}\n`);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      unregister();
      return { stopMs, leftovers: leftovers.length };
    })());

  const url = `http://127.0.0.1:${ports.PORT}`;
  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  for (;;) {
    if (child.exitCode !== null) {
      unregister();
      throw new Error(`npm start exited with code ${child.exitCode} before answering:\n${output.slice(-4000)}`);
    }
    try {
      const res = await fetch(`${url}/api/openapi.json`, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      kill();
      unregister();
      throw new Error(`npm start did not answer within ${(options.timeoutMs ?? 300_000) / 1000} s:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    ports,
    url,
    offlineUrl: `http://127.0.0.1:${ports.OFFLINE_HTTP_PORT}`,
    emulatorUrl: `http://127.0.0.1:${ports.EMULATOR_PORT}`,
    child,
    answeredMs: performance.now() - started,
    lines,
    output: () => output,
    stop,
  };
}

/** JSON over HTTP against a running stack; throws on an unexpected status. */
export async function api(url: string, method: string, path: string, o: { token?: string; body?: unknown; expect?: number } = {}): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  const expected = o.expect !== undefined ? [o.expect] : method === 'POST' ? [200, 201] : [200];
  if (!expected.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 400)}`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
