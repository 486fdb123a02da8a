/**
 * Section 8, the local stack under chat load: what `npm start` runs (serverless-offline over DynamoDB
 * Local, and the stream poller that folds the shared aggregates), driven by autocannon at 16
 * connections with chat turns only, each connection its own user, conversation and thread. Besides
 * throughput and latency it reports where the CPU went, per process, from /proc (utime + stime over
 * the measured window): DynamoDB Local (the JVM), serverless-offline (the server, its handler worker
 * threads and its esbuild child), the stream poller (a process of its own, as under `npm start`), and
 * this process (autocannon and the in-process platform emulator).
 *
 * Figures before the stream aggregator existed were taken with this same section on the parent commit
 * (the poller row absent); docs/benchmarks.md keeps them beside the latest run.
 */
import { readFileSync } from 'node:fs';
import autocannon, { type Result } from 'autocannon';
import { fmtMs, loadAverage, markdownTable, onCleanup, processTree, type Row, type SectionResult } from './harness';
import { seedChatters, service } from './service';

export interface StackOptions {
  seconds: number;
  connections: number;
  warmupRequests: number;
  /** Starts the stream poller as its own process over the run's table; absent before the aggregator existed. */
  startPoller?: (env: Record<string, string>) => Promise<{ pid: number; stop(): Promise<void> }>;
}

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** CPU seconds (user + system) a process and its descendants have used so far, from /proc. */
function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of stat (utime, stime), counted from the state field (3).
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS_PER_SECOND;
}

function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** The DynamoDB Local JVM started by this process (bench/harness.ts startLocalRuntime). */
function dynamoPid(): number {
  for (const p of processTree(process.pid)) {
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('DynamoDBLocal.jar')) return p;
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('DynamoDB Local is not a child of this process');
}

export interface StackResult {
  result: Result;
  wallSeconds: number;
  cpu: { name: string; seconds: number }[];
  loadBefore: string;
}

export async function stack(options: StackOptions): Promise<SectionResult> {
  const svc = await service();
  const { freePort, startOffline } = await import('../local/runtime');

  const chatters = await seedChatters(svc, options.connections, 'Stack', 'On the local stack: what is the capital of France?');

  const poller = options.startPoller ? await options.startPoller(svc.runtime.env) : undefined;
  const unregisterPoller = poller ? onCleanup('stream poller', () => poller.stop()) : () => undefined;
  process.stderr.write('  starting serverless-offline (it bundles every function first)…\n');
  const offline = await startOffline({ port: await freePort(), lambdaPort: await freePort(), stage: svc.runtime.stage, env: svc.runtime.env });
  const unregister = onCleanup('serverless-offline', () => offline.stop());
  try {
    let next = 0;
    const request = {
      url: `${offline.url}/api/chat/thread`,
      method: 'POST' as const,
      setupClient: (client: { setHeadersAndBody(h: Record<string, string>, b: string): void }) => {
        const c = chatters[next++ % chatters.length]!;
        client.setHeadersAndBody({ 'content-type': 'application/json', authorization: `Bearer ${c.token}` }, c.body);
      },
    };
    process.stderr.write(`  warm-up (${options.warmupRequests} turns), then ${options.seconds} s at ${options.connections} connections…\n`);
    await cannon({ ...request, connections: options.connections, amount: options.warmupRequests });

    const processes: [string, () => number][] = [
      ['DynamoDB Local (JVM)', () => treeCpuSeconds(dynamoPid())],
      ['serverless-offline (server, workers, esbuild)', () => treeCpuSeconds(offline.process.pid as number)],
      ...(poller ? ([['stream poller', () => treeCpuSeconds(poller.pid)]] as [string, () => number][]) : []),
      ['bench process (autocannon, emulator)', ownCpuSeconds],
    ];
    const loadBefore = loadAverage();
    const before = processes.map(([, f]) => f());
    const started = performance.now();
    const result = await cannon({ ...request, connections: options.connections, duration: options.seconds });
    const wallSeconds = (performance.now() - started) / 1000;
    const cpu = processes.map(([name, f], i) => ({ name, seconds: f() - (before[i] as number) }));
    return report({ result, wallSeconds, cpu, loadBefore }, options);
  } finally {
    await offline.stop();
    unregister();
    await poller?.stop();
    unregisterPoller();
  }
}

function cannon(options: Parameters<typeof autocannon>[0]): Promise<Result> {
  const instance = autocannon({ timeout: 30, ...options });
  const stop = onCleanup('autocannon', () => instance.stop());
  return Promise.resolve(instance).finally(stop);
}

export function report(run: StackResult, options: StackOptions): SectionResult {
  const { result, wallSeconds, cpu } = run;
  const failures = result.non2xx + result.errors + result.timeouts;
  const share = (s: number) => `${((s / wallSeconds) * 100).toFixed(0)}%`;
  const total = cpu.reduce((a, c) => a + c.seconds, 0);
  const rows: Row[] = [
    {
      section: '8 local stack',
      measure: `chat turns through serverless-offline + DynamoDB Local, ${options.connections} connections`,
      value: `${result.requests.average.toFixed(1)} turns/s (${result.requests.total} in ${Math.round(wallSeconds)} s), p50 ${fmtMs(result.latency.p50)}, p99 ${fmtMs(result.latency.p99)}, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}`,
      target: 'no errors',
      status: failures === 0 && result.requests.total > 0 ? 'met' : 'not met',
    },
    {
      section: '8 local stack',
      measure: 'CPU by process (share of one core)',
      value: cpu.map((c) => `${c.name} ${share(c.seconds)}`).join(', '),
      status: 'info',
    },
  ];
  const markdown = [
    `What \`npm start\` runs, under chat load: serverless-offline (local/runtime.ts startOffline) over this run's DynamoDB Local table and the emulator (delays 0)${options.startPoller ? ', and the stream poller (local/stream-poller.ts) as a process of its own, folding the shared aggregates as the aggregator function does in AWS' : ''}; autocannon with ${options.connections} connections, each its own user, conversation and thread, ${options.warmupRequests} turns of warm-up, then ${options.seconds} s of chat turns (POST /api/chat/thread). CPU: user + system time from /proc over the measured window, per process tree, as a share of one core (the machine has two; other work on it shows in the load average, ${run.loadBefore} before the run).`,
    '',
    markdownTable(
      ['Turns/s (completed)', 'p50', 'p99', 'non-2xx', 'Errors / timeouts'],
      [
        [
          `${result.requests.average.toFixed(1)} (${result.requests.total})`,
          fmtMs(result.latency.p50),
          fmtMs(result.latency.p99),
          result.non2xx,
          result.errors + result.timeouts,
        ],
      ],
    ),
    '',
    markdownTable(
      ['Process', 'CPU seconds', 'Share of one core'],
      [...cpu.map((c) => [c.name, c.seconds.toFixed(1), share(c.seconds)]), ['all', total.toFixed(1), share(total)]],
    ),
  ].join('\n');
  return { rows, markdown };
}
