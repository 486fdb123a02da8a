/**
 * Section 13, the gateway beside Portkey (issue 24): one POST /v1/chat/completions, non-streamed, at
 * 16 connections, through
 *
 *   - the stub upstream called directly: the emulator's hosted OpenAI-compatible API (what a hosted
 *     resource calls);
 *   - Portkey's gateway (bench/portkey.ts, the pinned version) with its `openai` provider and the stub
 *     as its custom host;
 *   - the service's gateway through serverless-offline (the HTTP API route, chatCompletions), with an
 *     API key and a hosted resource deployed on that stub;
 *   - the service's gateway through the front door, which is what a client of `npm start` reaches:
 *     the front door sends POST /v1/chat/completions to the local function URL (chatCompletionsStream,
 *     in the npm start process), as CloudFront does once deployed.
 *
 * All four against one real `npm start` (bench/npm-start.ts: ports, data and bundles of its own; the
 * emulator's response delay 0 and the reconciler off, so nothing but these calls runs), with
 * autocannon, in rounds: each round runs every target back to back for its share of the calls, the
 * order rotating, so drift on the (shared) machine hits all alike. Latencies are every call's own,
 * merged over the rounds; CPU is read from /proc per process around each target's runs (after a
 * pause that lets the stream poller settle the calls of the run), so it is per call and per process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Instance, type Result } from 'autocannon';
import { ROOT } from '../local/runtime';
import {
  check,
  commandLine,
  fmtMs,
  loadAverage,
  markdownTable,
  onCleanup,
  processCpuSeconds,
  processTree,
  quantile,
  type Row,
  type SectionResult,
} from './harness';
import { api, LAUNCHERS, stackCpu, startStack, STACK_ROLES, type RunningStack } from './npm-start';
import { PORTKEY_VERSION, startPortkey, type Portkey } from './portkey';
import { categoriesPerCall, categoryTable, diff, jfrStart, jfrStop, PRELOAD, profileWindow, readProfiles, threadCpuOfTree } from './profile';

export interface SideBySideOptions {
  /** Calls per target, over all rounds. */
  calls: number;
  rounds: number;
  connections: number;
  warmup: number;
  /** Also profile where the CPU goes (bench/profile.ts): an idle window, then a window of calls per gateway path. */
  profile?: boolean;
}

const HOSTED_MODEL = 'meta/llama-3.1-8b-instruct';
const HOSTED_KEY = 'local-hosted-key';
const PROMPT = 'Benchmark: what is the capital of France?';
const PORTKEY = `Portkey ${PORTKEY_VERSION}`;
const BENCH = 'bench process (autocannon)';
const SETTLE_MS = 1500;

type TargetName = 'stub upstream, directly' | typeof PORTKEY | 'gateway through serverless-offline' | 'gateway through the front door (npm start)';

interface Target {
  name: TargetName;
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface TargetRun {
  latencies: number[];
  calls: number;
  failures: number;
  codes: Record<string, number>;
  wallSeconds: number;
  cpu: Map<string, number>;
}

export async function sideBySide(options: SideBySideOptions): Promise<SectionResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-ops-bench-stack-'));
  onCleanup('bench stack data', () => rmSync(dataDir, { recursive: true, force: true }));
  const password = `Bench-${Math.random().toString(36).slice(2)}-Pw1!`;
  const profileDir = join(dataDir, 'profiles');
  const profiling: Record<string, string> = options.profile ? { NODE_OPTIONS: `--require ${PRELOAD}`, BENCH_CPU_PROFILE_DIR: profileDir } : {};
  process.stderr.write('  starting npm start (own ports, data and bundles; emulator delay 0, reconciler off)…\n');
  const stack = await startStack({
    root: ROOT,
    dataDir,
    workFolder: '.esbuild-offline-bench',
    env: {
      ADMIN_PASSWORD: password,
      EMULATOR_RESPONSE_DELAY_MS: '0',
      EMULATOR_LIFECYCLE_DELAY_MS: '0',
      RECONCILE_INTERVAL_SECONDS: '0',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...profiling,
    },
  });
  let portkey: Portkey | undefined;
  try {
    process.stderr.write(`  npm start answered after ${(stack.answeredMs / 1000).toFixed(1)} s; a hosted resource and an API key…\n`);
    const { token } = await api(stack.url, 'POST', '/api/auth/login', { body: { username: 'admin', password } });
    const endpointName = `bench-sbs-${Math.random().toString(36).slice(2, 8)}`;
    await api(stack.url, 'POST', '/api/deploy/hosted', { token, body: { modelId: HOSTED_MODEL, endpointName, dryRun: false } });
    const { key } = await api(stack.url, 'POST', '/api/keys', { token, body: { name: 'bench side by side' } });
    portkey = await startPortkey();

    const upstream = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 });
    const json = { 'content-type': 'application/json' };
    const targets: Target[] = [
      {
        name: 'stub upstream, directly',
        url: `${stack.emulatorUrl}/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${HOSTED_KEY}` },
        body: upstream(HOSTED_MODEL),
      },
      {
        name: PORTKEY,
        url: `${portkey.url}/v1/chat/completions`,
        headers: {
          ...json,
          authorization: `Bearer ${HOSTED_KEY}`,
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': `${stack.emulatorUrl}/v1`,
        },
        body: upstream(HOSTED_MODEL),
      },
      {
        name: 'gateway through serverless-offline',
        url: `${stack.offlineUrl}/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${key}` },
        body: upstream(endpointName),
      },
      {
        name: 'gateway through the front door (npm start)',
        url: `${stack.url}/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${key}` },
        body: upstream(endpointName),
      },
    ];
    for (const t of targets) {
      const res = await fetch(t.url, { method: 'POST', headers: t.headers, body: t.body });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('"choices"')) throw new Error(`${t.name} answered ${res.status}: ${text.slice(0, 300)}`);
    }

    process.stderr.write(`  warm-up: ${options.warmup} calls per target at ${options.connections} connections…\n`);
    for (const t of targets) await cannon(t, options.connections, options.warmup);

    const pk = portkey;
    const cpuNow = () => {
      const byRole = stackCpu(stack);
      byRole.set(PORTKEY, cpuOf(pk.process.pid as number));
      const own = process.cpuUsage();
      byRole.set(BENCH, (own.user + own.system) / 1e6);
      return byRole;
    };
    const runs = new Map<TargetName, TargetRun>(
      targets.map((t) => [t.name, { latencies: [], calls: 0, failures: 0, codes: {}, wallSeconds: 0, cpu: new Map() }]),
    );
    const loads: string[] = [loadAverage()];
    const perRound = Math.ceil(options.calls / options.rounds);
    for (let round = 0; round < options.rounds; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
      process.stderr.write(
        `  round ${round + 1} of ${options.rounds}: ${perRound} calls each (${order.map((t) => t.name.split(' ')[0]).join(', ')})…\n`,
      );
      for (const t of order) {
        const run = runs.get(t.name) as TargetRun;
        const before = cpuNow();
        const started = performance.now();
        const out = await cannon(t, options.connections, perRound);
        run.wallSeconds += (performance.now() - started) / 1000;
        // The stream poller settles a gateway call after it answered: its work belongs to this run.
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const after = cpuNow();
        for (const [name, seconds] of after) run.cpu.set(name, (run.cpu.get(name) ?? 0) + seconds - (before.get(name) ?? 0));
        run.latencies.push(...out.latencies);
        run.calls += out.result.requests.total;
        run.failures += out.result.non2xx + out.result.errors + out.result.timeouts;
        for (const [code, s] of Object.entries(out.result.statusCodeStats ?? {})) run.codes[code] = (run.codes[code] ?? 0) + s.count;
      }
      loads.push(loadAverage());
    }
    const result = report(targets, runs, options, loads, stack);
    if (options.profile) {
      const gatewayTargets = targets.filter((t) => t.name.startsWith('gateway'));
      result.markdown += `\n\n${await profileCalls(stack, gatewayTargets, profileDir, options)}`;
    }
    return result;
  } finally {
    await portkey?.stop();
    const { leftovers } = await stack.stop();
    if (leftovers > 0) process.stderr.write(`  npm start left ${leftovers} processes behind (killed)\n`);
  }
}

function cpuOf(pid: number): number {
  return processTree(pid).reduce((a, p) => a + processCpuSeconds(p), 0);
}

/** `amount` calls at `connections`, with every call's latency (ms). */
async function cannon(t: Target, connections: number, amount: number): Promise<{ result: Result; latencies: number[] }> {
  const latencies: number[] = [];
  const instance: Instance = autocannon({ url: t.url, method: 'POST', headers: t.headers, body: t.body, connections, amount, timeout: 30 });
  const stop = onCleanup('autocannon', () => instance.stop());
  (instance as unknown as NodeJS.EventEmitter).on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  try {
    return { result: await instance, latencies };
  } finally {
    stop();
  }
}

function report(
  targets: Target[],
  runs: Map<TargetName, TargetRun>,
  options: SideBySideOptions,
  loads: string[],
  stack: RunningStack,
): SectionResult {
  const S = '13 side by side';
  const stats = new Map(
    targets.map((t) => {
      const r = runs.get(t.name) as TargetRun;
      const sorted = [...r.latencies].sort((a, b) => a - b);
      return [t.name, { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), rate: r.calls / Math.max(r.wallSeconds, 1e-9), run: r }];
    }),
  );
  const portkey = stats.get(PORTKEY)!;
  const rows: Row[] = [];
  for (const t of targets) {
    const s = stats.get(t.name)!;
    rows.push({
      section: S,
      measure: `${t.name}, ${options.connections} connections`,
      value: `p50 ${fmtMs(s.p50)}, p99 ${fmtMs(s.p99)}, ${s.rate.toFixed(1)} calls/s (${s.run.calls} calls, failures ${s.run.failures})`,
      target: 'no failures',
      status: check(s.run.failures === 0 && s.run.calls > 0),
    });
  }
  for (const name of ['gateway through serverless-offline', 'gateway through the front door (npm start)'] as const) {
    const s = stats.get(name)!;
    const ratio = s.p50 / portkey.p50;
    rows.push({
      section: S,
      measure: `${name}: p50 ÷ Portkey's p50`,
      value: `${ratio.toFixed(2)} (${fmtMs(s.p50)} ÷ ${fmtMs(portkey.p50)})`,
      target: '≤ 4',
      status: check(ratio <= 4),
    });
  }
  const roles = [...STACK_ROLES.map((r) => r.name), PORTKEY, BENCH, LAUNCHERS];
  const perCall = (t: Target, role: string) => {
    const r = runs.get(t.name) as TargetRun;
    return ((r.cpu.get(role) ?? 0) * 1000) / Math.max(1, r.calls);
  };
  const total = (t: Target) => roles.reduce((a, role) => a + perCall(t, role), 0);
  for (const t of targets) {
    rows.push({
      section: S,
      measure: `${t.name}: CPU per call`,
      value: `${total(t).toFixed(1)} ms (${roles
        .filter((role) => perCall(t, role) >= 0.05)
        .map((role) => `${role.replace(/ \(.*\)$/, '')} ${perCall(t, role).toFixed(1)}`)
        .join(', ')})`,
      status: 'info',
    });
  }
  const markdown = [
    `One POST /v1/chat/completions (non-streamed, ${64} max_tokens, a one-line prompt) at ${options.connections} connections, ${options.calls} calls per target after ${options.warmup} warm-up calls each, in ${options.rounds} rounds of back-to-back runs (the order rotating each round), all against one real \`npm start\` (answered after ${(stack.answeredMs / 1000).toFixed(1)} s; emulator response delay 0, reconciler off) and Portkey's gateway ${PORTKEY_VERSION} (node, its build, installed into .bench-cache/) with its \`openai\` provider and the emulator's hosted API as custom host. The gateway calls use an API key without a budget and a hosted resource deployed on that same stub. Load average before and after each round: ${loads.join(' → ')}.`,
    '',
    markdownTable(
      ['Target', 'p50', 'p99', 'Calls/s', 'Calls', 'Failures (codes)', 'p50 ÷ Portkey'],
      targets.map((t) => {
        const s = stats.get(t.name)!;
        const codes = Object.entries(s.run.codes)
          .map(([c, n]) => `${c}×${n}`)
          .join(' ');
        return [t.name, fmtMs(s.p50), fmtMs(s.p99), s.rate.toFixed(1), s.run.calls, `${s.run.failures} (${codes})`, (s.p50 / portkey.p50).toFixed(2)];
      }),
    ),
    '',
    `CPU per call, milliseconds, by process (user + system time from /proc over each target's runs, including a ${SETTLE_MS / 1000} s pause after each run in which the stream poller settles that run's calls; a process's idle work during the runs counts too):`,
    '',
    markdownTable(
      ['Process', ...targets.map((t) => t.name)],
      [...roles.map((role) => [role, ...targets.map((t) => perCall(t, role).toFixed(2))]), ['all', ...targets.map((t) => total(t).toFixed(2))]],
    ),
  ].join('\n');
  return { rows, markdown };
}

// ------------------------------------------------------------------------------------ profile

/**
 * Where the CPU goes (--profile): first an idle window (no calls: what the stack costs doing nothing),
 * then, per gateway path, one window of calls with every Node thread's V8 profiler on, DynamoDB
 * Local's Flight Recorder on, and each thread's CPU read from /proc.
 */
async function profileCalls(stack: RunningStack, targets: Target[], dir: string, options: SideBySideOptions): Promise<string> {
  const dynamo = processTree(stack.child.pid as number).find((p) => commandLine(p).includes('DynamoDBLocal.jar'));
  const out: string[] = ['### Where the CPU goes (profiled run)', ''];
  const idleSeconds = 10;
  process.stderr.write(`  profile: ${idleSeconds} s idle…\n`);
  await new Promise((r) => setTimeout(r, 2000));
  const idleBefore = stackCpu(stack);
  const idleThreadsBefore = threadCpuOfTree(stack.child.pid as number);
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const idle = diff(stackCpu(stack), idleBefore);
  const idleThreads = diff(threadCpuOfTree(stack.child.pid as number), idleThreadsBefore);
  out.push(
    `**Idle** (${idleSeconds} s, no calls): ${[...idle]
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k} ${((v / idleSeconds) * 100).toFixed(1)}% of a core`)
      .join(', ')}. Busiest threads: ${[...idleThreads]
      .filter(([, v]) => v >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k} ${((v / idleSeconds) * 100).toFixed(1)}%`)
      .join(', ')}.`,
    '',
  );
  for (const t of targets) {
    const label = t.name.includes('serverless-offline') ? 'offline' : 'frontdoor';
    const calls = options.calls;
    process.stderr.write(`  profile: ${calls} calls, ${t.name}…\n`);
    const jfr = dynamo ? jfrStart(dynamo) : false;
    const threadsBefore = threadCpuOfTree(stack.child.pid as number);
    const rolesBefore = stackCpu(stack);
    const done = await profileWindow(dir, label, () => cannon(t, options.connections, calls));
    const threads = diff(threadCpuOfTree(stack.child.pid as number), threadsBefore);
    const roles = diff(stackCpu(stack), rolesBefore);
    const recording = dynamo && jfr ? jfrStop(dynamo, dir) : undefined;
    const n = done.result.requests.total;
    const summary = readProfiles(dir, label);
    const offline = categoriesPerCall(summary, (s) => s === 'serverless.js', n);
    const start = categoriesPerCall(summary, (s) => s === 'start.ts', n);
    const poller = categoriesPerCall(summary, (s) => s === 'stream-aggregator.ts', n);
    out.push(
      `**${t.name}**, ${n} calls at ${options.connections} connections (p50 ${fmtMs(
        quantile(
          [...done.latencies].sort((a, b) => a - b),
          0.5,
        ),
      )} while profiled):`,
      '',
    );
    out.push(
      markdownTable(
        ['Process', 'CPU ms per call'],
        [...roles].filter(([, v]) => v > 0).map(([k, v]) => [k, ((v * 1000) / n).toFixed(2)]),
      ),
      '',
      'CPU per call by thread (/proc; digits in thread names folded):',
      '',
      markdownTable(
        ['Thread', 'CPU ms per call'],
        [...threads]
          .filter(([, v]) => (v * 1000) / n >= 0.05)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => [k, ((v * 1000) / n).toFixed(2)]),
      ),
      '',
      'V8 profiles, self time by category (ms per call):',
      '',
      categoryTable([
        ['serverless-offline main thread', offline.main],
        ['serverless-offline handler workers', offline.workers],
        ['npm start process (front door, function URL, emulator)', start.main],
        ['stream poller', poller.main],
      ]),
      '',
    );
    if (recording) {
      const total = recording.samples;
      out.push(
        `DynamoDB Local, Flight Recorder execution samples (${total}) by what is on their stack (first match in this order):`,
        '',
        markdownTable(
          ['Category', 'Share of samples'],
          [...recording.categories].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, `${((v / total) * 100).toFixed(1)}%`]),
        ),
        '',
        `Hottest frames: ${[...recording.topFrames]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([k, v]) => `${k} ${((v / total) * 100).toFixed(1)}%`)
          .join(', ')}.`,
        '',
      );
    }
  }
  return out.join('\n');
}
