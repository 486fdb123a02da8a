/**
 * `npm start` itself, run as a person runs it (local/start.ts under tsx) with ports of its own and its
 * state in a temporary DATA_DIR: what its terminal shows, that no client can take it down, that it
 * listens on loopback only, and that nothing it started outlives it. Also the port check, which
 * refuses before anything starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT } from '../../local/runtime';
import { hangUp } from '../helpers/hang-up';
import { alive, isLoopback, listeners, processTree } from '../helpers/processes';

interface Ports {
  PORT: number;
  OFFLINE_HTTP_PORT: number;
  OFFLINE_LAMBDA_PORT: number;
  FUNCTION_URL_PORT: number;
  DYNAMODB_PORT: number;
  EMULATOR_PORT: number;
}

async function freePorts(): Promise<Ports> {
  const names = ['PORT', 'OFFLINE_HTTP_PORT', 'OFFLINE_LAMBDA_PORT', 'FUNCTION_URL_PORT', 'DYNAMODB_PORT', 'EMULATOR_PORT'] as const;
  const ports = {} as Ports;
  for (const name of names) ports[name] = await freePort();
  return ports;
}

/** `npm start` (tsx local/start.ts) with nothing of this test run's environment but what a shell has. */
function npmStart(ports: Ports, dataDir: string): { child: ChildProcess; out: string[]; err: string[] } {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'local', 'start.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      DATA_DIR: dataDir,
      // Its own bundles, so that a developer's `npm start` in this checkout keeps its own.
      ESBUILD_WORK_FOLDER: '.esbuild-offline-stack-test',
      BCRYPT_COST: '4',
      RECONCILE_INTERVAL_SECONDS: '0',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  const err: string[] = [];
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    out.push(...lines);
  });
  child.stderr?.on('data', (d: Buffer) => err.push(d.toString()));
  return { child, out, err };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs: number, detail = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s\n${detail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a running npm start', () => {
  let ports: Ports;
  let dataDir: string;
  let stack: ReturnType<typeof npmStart>;
  let banner: number;

  const output = () => `stdout:\n${stack.out.join('\n')}\nstderr:\n${stack.err.join('')}`;
  const url = () => `http://127.0.0.1:${ports.PORT}`;
  const functionUrl = () => `http://127.0.0.1:${ports.FUNCTION_URL_PORT}`;
  const randomKey = () => `mo_${randomBytes(32).toString('base64url')}`;

  beforeAll(async () => {
    ports = await freePorts();
    dataDir = mkdtempSync(join(tmpdir(), 'model-ops-stack-'));
    stack = npmStart(ports, dataDir);
    banner = await until(
      'the banner',
      () => {
        const at = stack.out.findIndex((l) => l.includes('✔ Model Operations Service is up'));
        return at >= 0 && stack.out.some((l) => l.trim().startsWith('password')) ? at : undefined;
      },
      240_000,
      output,
    );
  }, 250_000);

  afterAll(async () => {
    if (stack?.child.pid && alive(stack.child.pid)) {
      for (const pid of processTree(stack.child.pid).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the first start ends with the login, the generated password itself last, and nothing of its machinery before it', async () => {
    const before = stack.out.slice(0, banner);
    expect(before.length).toBeLessThan(12);
    expect(before.join('\n')).not.toMatch(/READY|health-probe|Function names exposed|[┌│└]|λ|"level"/);
    const login = stack.out
      .slice(banner)
      .filter((l) => l.trim())
      .slice(-3);
    expect(login[0]?.trim()).toBe(`Log in at http://localhost:${ports.PORT}/`);
    expect(login[1]?.trim()).toBe('username  admin');
    const password = /^password {2}(\S+) {3}\(generated now/.exec(login[2]?.trim() ?? '')?.[1] as string;
    const res = await fetch(`${url()}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(res.status).toBe(200);
  });

  test('after the banner, each API request is one short line (method, path, status, milliseconds) and no JSON log', async () => {
    // The line of the login above comes once its connection has closed.
    await until('the login’s line', () => (stack.out.some((l) => / POST \/api\/auth\/login 200 \d+ ms$/.test(l)) ? true : undefined), 10_000, output);
    const from = stack.out.length;
    expect((await fetch(`${url()}/api/auth/validate`)).status).toBe(401);
    expect((await fetch(`${url()}/api/no-such-route`)).status).toBe(404);
    await until('two request lines', () => (stack.out.length >= from + 2 ? true : undefined), 10_000, output);
    // A moment for anything a function would print after its answer.
    await new Promise((r) => setTimeout(r, 500));
    expect(stack.out.slice(from)).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d GET \/api\/auth\/validate 401 \d+ ms$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d GET \/api\/no-such-route 404 \d+ ms$/),
    ]);
  });

  test('clients hanging up at any moment, at the front door and at the function URL, leave every part of it answering', async () => {
    const body = JSON.stringify({ model: 'any', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const moments = [{ until: 0 }, { until: 2 }, { until: 10 }, { until: 30 }, { until: 5, halfBody: true }, { until: 'first-bytes' as const }];
    for (const target of [url(), functionUrl()]) {
      for (const moment of moments) {
        await hangUp(target, { path: '/v1/chat/completions', body, headers: { authorization: `Bearer ${randomKey()}` }, ...moment });
      }
    }
    await new Promise((r) => setTimeout(r, 500));
    const completion = (base: string) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${randomKey()}`, 'content-type': 'application/json' },
        body,
      });
    expect((await completion(url())).status).toBe(401);
    expect((await completion(functionUrl())).status).toBe(401);
    expect((await fetch(`${url()}/api/auth/validate`)).status).toBe(401);
    expect(alive(stack.child.pid as number)).toBe(true);
  });

  test('every port it listens on, and every port of the tests’ own runtime, is bound to loopback only', () => {
    const mine = listeners(processTree(stack.child.pid as number));
    expect(new Set(mine.map((l) => l.port))).toEqual(new Set(Object.values(ports)));
    const runtime = listeners(processTree(Number(process.env.TEST_RUNTIME_PID)));
    expect(runtime.length).toBeGreaterThan(0);
    for (const l of [...mine, ...runtime])
      expect({ port: l.port, loopback: isLoopback(l.address), address: l.address }).toMatchObject({ loopback: true });
  });

  test('killing its start process with SIGKILL leaves nothing it started running, and frees every port', async () => {
    const tree = processTree(stack.child.pid as number);
    // tsx's launcher runs local/start.ts as its one child: that is the start process.
    const start = tree[1] as number;
    expect(readFileSync(`/proc/${start}/cmdline`, 'utf8')).toContain('local/start.ts');
    expect(tree.length).toBeGreaterThan(4);
    process.kill(start, 'SIGKILL');
    await until(
      'every process of the stack to end',
      () => (tree.every((pid) => !alive(pid)) ? true : undefined),
      20_000,
      // Which process outlived it, and as what (its command line), so a failure names the culprit.
      () =>
        tree
          .filter(alive)
          .map((pid) => {
            try {
              return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 300)}`;
            } catch {
              return `${pid}: (gone)`;
            }
          })
          .join('\n'),
    );
    for (const port of Object.values(ports)) {
      await new Promise<void>((resolve, reject) => {
        const server = createServer().once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});

describe('ports held by other programs', () => {
  test('are all named in one message with the variables that move them, before anything starts', async () => {
    const ports = await freePorts();
    const holders: Server[] = [];
    for (const port of [ports.PORT, ports.DYNAMODB_PORT, ports.OFFLINE_LAMBDA_PORT]) {
      const server = createServer();
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
      holders.push(server);
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'model-ops-ports-'));
    try {
      const run = npmStart(ports, dataDir);
      const code = await new Promise((r) => run.child.once('exit', r));
      expect(code).toBe(1);
      const message = run.err.join('');
      expect(message).toMatch(/3 ports that npm start needs are in use by another program/);
      expect(message).toMatch(new RegExp(`${ports.PORT} +the API and the console +PORT`));
      expect(message).toMatch(new RegExp(`${ports.DYNAMODB_PORT} +DynamoDB Local +DYNAMODB_PORT`));
      expect(message).toMatch(new RegExp(`${ports.OFFLINE_LAMBDA_PORT} +serverless-offline's Lambda endpoint +OFFLINE_LAMBDA_PORT`));
      expect(message).toMatch(/PORT=\d+ DYNAMODB_PORT=\d+ OFFLINE_LAMBDA_PORT=\d+ npm start/);
      expect(run.out.join('\n')).not.toMatch(/Starting/);
    } finally {
      for (const server of holders) server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
