/**
 * Shared pieces of the benchmark sections (bench/run.ts): statistics, timing loops with time budgets,
 * the local runtime (DynamoDB Local + emulator + table + environment), clean-up on every exit path,
 * the DynamoDB meter (calls, sequential round trips, consumed capacity), and the result rows.
 *
 * Nothing here imports the service's own modules at load time: core/config reads the environment once,
 * at import, so every service module is imported dynamically after `startLocalRuntime` has set it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// ------------------------------------------------------------------------------------ results

export type Status = 'met' | 'not met' | 'info';

export interface Row {
  section: string;
  measure: string;
  value: string;
  target?: string;
  status?: Status;
  /** A per-item row (one function of the cold-start table): in the console table, not in the doc's summary. */
  detail?: boolean;
}

export interface SectionResult {
  /** Rows for the one console table. */
  rows: Row[];
  /** Markdown for docs/benchmarks.md (tables and notes of this section). */
  markdown: string;
}

export const check = (ok: boolean): Status => (ok ? 'met' : 'not met');

/** The one table `npm run bench` prints. */
export function renderTable(rows: Row[]): string {
  const header: Row = { section: 'Section', measure: 'Measure', value: 'Value', target: 'Target', status: 'info' };
  const cells = (r: Row, isHeader = false) => [
    r.section,
    r.measure,
    r.value,
    r.target ?? '',
    isHeader ? 'Met' : r.status === 'info' || !r.status ? '' : r.status === 'met' ? 'yes' : 'NO',
  ];
  const all = [cells(header, true), ...rows.map((r) => cells(r))];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd();
  const out = [line(all[0]!), widths.map((w) => '-'.repeat(w)).join('-|-')];
  let previous = '';
  for (const c of all.slice(1)) {
    if (previous && c[0] !== previous) out.push(widths.map((w) => '-'.repeat(w)).join('-|-'));
    previous = c[0]!;
    out.push(line(c));
  }
  return out.join('\n');
}

export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const esc = (v: string | number) => String(v).replace(/\|/g, '\\|');
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

// ------------------------------------------------------------------------------------ statistics

/** Nearest-rank quantile of an ascending array. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    min: sorted[0] ?? NaN,
    max: sorted.at(-1) ?? NaN,
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
  };
}

export const fmtMs = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`);
export const fmtKb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const fmtMb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const fmtNum = (n: number, digits = 1) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));
export const ratio = (a: number, b: number) => a / b;

// ------------------------------------------------------------------------------------ timing

export interface LoopOptions {
  /** Measured iterations wanted. */
  n: number;
  /** Always measured, whatever the budget (the minimum asked for). */
  minN?: number;
  /** Unmeasured iterations first. */
  warmup?: number;
  /** After minN iterations, stop once this much time has been spent measuring. */
  budgetMs?: number;
}

/**
 * Runs `fn` `n` times and returns the duration of each call in milliseconds. `fn` receives the
 * iteration index and may prepare its input before calling `time`, so only the measured part is timed:
 *
 *   await timeLoop({ n: 1000 }, async (i, time) => { const event = build(i); await time(() => handler(event)); });
 */
export async function timeLoop(
  options: LoopOptions,
  fn: (i: number, time: <T>(work: () => Promise<T>) => Promise<T>) => Promise<void>,
): Promise<number[]> {
  const { n, minN = n, warmup = 0, budgetMs = Infinity } = options;
  const durations: number[] = [];
  let last: number;
  const time = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    last = performance.now() - started;
    return result;
  };
  for (let i = 0; i < warmup; i++) await fn(i, time);
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    last = NaN;
    await fn(warmup + i, time);
    if (Number.isNaN(last)) throw new Error('timeLoop: the iteration did not call time()');
    durations.push(last);
    if (durations.length >= minN && performance.now() - started > budgetMs) break;
  }
  return durations;
}

// ------------------------------------------------------------------------------------ clean-up

type Cleanup = { name: string; fn: () => Promise<void> | void };
const cleanups: Cleanup[] = [];
let cleaning: Promise<void> | undefined;

/** Registers something to stop on every exit path (normal end, error, signal, watchdog). LIFO. */
export function onCleanup(name: string, fn: () => Promise<void> | void): () => void {
  const entry = { name, fn };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const { name, fn } = cleanups.pop() as Cleanup;
      try {
        await Promise.race([Promise.resolve().then(fn), new Promise((r) => setTimeout(r, 15_000).unref())]);
      } catch (err) {
        console.error(`bench: clean-up of ${name} failed: ${(err as Error).message}`);
      }
    }
  })();
  return cleaning;
}

/**
 * Signals, uncaught errors and a hard deadline all stop everything that was started before the
 * process exits; a second signal exits at once.
 */
export function installExitHandlers(deadlineMs: number): void {
  let signalled = false;
  const bail = (code: number, why: string) => {
    if (signalled) process.exit(code);
    signalled = true;
    console.error(`\nbench: ${why}; stopping everything it started…`);
    void cleanupAll().finally(() => process.exit(code));
  };
  process.on('SIGINT', () => bail(130, 'interrupted'));
  process.on('SIGTERM', () => bail(143, 'terminated'));
  process.on('SIGHUP', () => bail(129, 'hung up'));
  process.on('uncaughtException', (err) => {
    console.error(err);
    bail(1, 'uncaught exception');
  });
  process.on('unhandledRejection', (err) => {
    console.error(err);
    bail(1, 'unhandled rejection');
  });
  setTimeout(() => bail(124, `time limit of ${Math.round(deadlineMs / 1000)} s reached`), deadlineMs).unref();
}

// ------------------------------------------------------------------------------------ runtime

export interface LocalRuntime {
  dynamoEndpoint: string;
  emulatorUrl: string;
  table: string;
  stage: string;
  /** The environment the handlers run with (also handed to serverless-offline). */
  env: Record<string, string>;
}

let runtime: Promise<LocalRuntime> | undefined;

/**
 * DynamoDB Local (in memory) and the platform emulator (lifecycle and response delays 0) on free
 * loopback ports, the table, and the service environment set on process.env. Started once per run.
 *
 * The table is `model-ops-<stage>` because serverless.yml derives TABLE_NAME from the stage: the
 * serverless-offline run of the load section then reads the very table seeded here.
 */
export function startLocalRuntime(): Promise<LocalRuntime> {
  runtime ??= (async () => {
    const [{ emulatedServiceEnv, freePort, localDynamoClient, startDynamo }, { startEmulator }, { ensureTable }] = await Promise.all([
      import('../local/runtime'),
      import('../local/emulator/server'),
      import('../tables/definition'),
    ]);
    const dynamo = await startDynamo({ port: await freePort() });
    onCleanup('DynamoDB Local', () => dynamo.stop());
    const hostedApiKey = 'bench-hosted-key';
    const emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, responseDelayMs: 0, hostedApiKey });
    onCleanup('emulator', () => emulator.close());

    const stage = 'bench';
    const table = `model-ops-${stage}`;
    const admin = localDynamoClient(dynamo.endpoint);
    await ensureTable(admin, table);
    admin.destroy();

    const env: Record<string, string> = {
      STAGE: stage,
      TABLE_NAME: table,
      ...emulatedServiceEnv({ dynamoEndpoint: dynamo.endpoint, emulatorUrl: emulator.url, tag: 'bench', hostedApiKey }),
      JWT_SECRET: randomBytes(48).toString('hex'),
      BCRYPT_COST: '10',
      // One log line and one metrics blob per request would go to this terminal; in Lambda they go to
      // CloudWatch asynchronously. Silenced so the timings measure the handler, not the terminal.
      LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_DEV: 'false',
      // Section 10 counts the reconciler's calls; pacing them would only add waiting.
      RECONCILE_PLATFORM_CALLS_PER_SECOND: '100',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    Object.assign(process.env, env);
    return { dynamoEndpoint: dynamo.endpoint, emulatorUrl: emulator.url, table, stage, env };
  })();
  return runtime;
}

// ------------------------------------------------------------------------------------ DynamoDB meter

export interface CallRecord {
  command: string;
  input: Record<string, any>;
  output?: Record<string, any>;
  error?: string;
  started: number;
  ended: number;
  /** ConsumedCapacity as DynamoDB (Local) reported it, summed over tables. */
  reportedUnits?: number;
}

export interface MeterSnapshot {
  calls: number;
  rounds: number;
  reportedRcu: number;
  reportedWcu: number;
  /** Calls that answered without ConsumedCapacity although it was asked for. */
  missingCapacity: number;
  records: CallRecord[];
}

const READ_COMMANDS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);

/**
 * Counts the DynamoDB calls made through the service's document client, and groups them into
 * sequential round trips: a call that starts while another is in flight overlaps it and joins its
 * round; a call that starts while none is in flight opens a new one.
 *
 * With `capacity` on, every command input gets ReturnConsumedCapacity: 'TOTAL' and the reported
 * units are summed; with `record` on, inputs and outputs are kept so that the capacity can also be
 * computed from item sizes (see capacityFromRecords).
 */
export class DbMeter {
  capacity = false;
  record = false;
  paused = false;
  private inFlight = 0;
  private snap: MeterSnapshot = DbMeter.empty();

  private static empty(): MeterSnapshot {
    return { calls: 0, rounds: 0, reportedRcu: 0, reportedWcu: 0, missingCapacity: 0, records: [] };
  }

  install(db: DynamoDBDocumentClient): void {
    // DynamoDBDocumentClient shares its base client's middleware stack; at the initialize step the
    // input and output are the document (native JavaScript) forms.
    db.middlewareStack.add(
      (next, context) => async (args) => {
        if (this.paused) return next(args);
        const command = (context as { commandName?: string }).commandName ?? 'unknown';
        const input = args.input as Record<string, any>;
        if (this.capacity) input.ReturnConsumedCapacity = 'TOTAL';
        const rec: CallRecord = { command, input, started: performance.now(), ended: 0 };
        const snap = this.snap;
        snap.calls++;
        if (this.inFlight++ === 0) snap.rounds++;
        try {
          const result = await next(args);
          rec.output = result.output as Record<string, any>;
          if (this.capacity) {
            const consumed = rec.output?.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
            if (consumed === undefined) snap.missingCapacity++;
            else {
              const units = (Array.isArray(consumed) ? consumed : [consumed]).reduce((a, c) => a + (c.CapacityUnits ?? 0), 0);
              rec.reportedUnits = units;
              if (READ_COMMANDS.has(command)) snap.reportedRcu += units;
              else snap.reportedWcu += units;
            }
          }
          return result;
        } catch (err) {
          rec.error = (err as Error).name;
          throw err;
        } finally {
          this.inFlight--;
          rec.ended = performance.now();
          if (this.record) snap.records.push(rec);
        }
      },
      { step: 'initialize', name: 'benchDbMeter', priority: 'high' },
    );
  }

  reset(): void {
    this.snap = DbMeter.empty();
  }

  /** Runs `fn` with a fresh count and returns what it did. */
  async measure<T>(fn: () => Promise<T>): Promise<{ result: T; meter: MeterSnapshot }> {
    this.reset();
    const result = await fn();
    const meter = this.snap;
    this.reset();
    return { result, meter };
  }
}

// ------------------------------------------------------------------------------------ item sizes

/** The size DynamoDB bills for a value (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html). */
export function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/^-/, '').replace('.', '').replace(/e.*$/i, '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((a: number, v) => a + valueSize(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((a: number, v) => a + 1 + valueSize(v), 0);
  if (typeof value === 'object')
    return 3 + Object.entries(value as Record<string, unknown>).reduce((a, [k, v]) => a + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return 0;
}

export function itemSize(item: Record<string, unknown> | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((a, [k, v]) => (v === undefined ? a : a + Buffer.byteLength(k) + valueSize(v)), 0);
}

// ------------------------------------------------------------------------------------ machine

export function machine(): { cpu: string; cores: number; memory: string; node: string; os: string } {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

// ------------------------------------------------------------------------------------ processes

/** pid and every descendant, from /proc (Linux). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may contain spaces; the ppid is the second field after it.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** Resident memory (VmRSS) of one process, in bytes (0 once it is gone). */
export function processRss(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Resident memory (VmRSS) of a process and its descendants, in bytes. */
export function treeRss(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** How many processes the tree has and how many threads they run (serverless-offline runs handlers in worker threads). */
export function treeThreads(pid: number): { processes: number; threads: number } {
  const tree = processTree(pid);
  let threads = 0;
  for (const p of tree) {
    try {
      const m = /Threads:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) threads += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return { processes: tree.length, threads };
}

/** Resident memory per process of the tree: command name and VmRSS in bytes, largest first. */
export function treeRssByProcess(pid: number): { pid: number; name: string; rss: number }[] {
  const out: { pid: number; name: string; rss: number }[] = [];
  for (const p of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)\s*kB/.exec(status)?.[1] ?? 0) * 1024;
      out.push({ pid: p, name: /Name:\s+(\S+)/.exec(status)?.[1] ?? '?', rss });
    } catch {
      // gone meanwhile
    }
  }
  return out.sort((a, b) => b.rss - a.rss);
}

/** The machine's 1-, 5- and 15-minute load averages, printed beside figures other work can move. */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** CPU seconds (user + system, every thread) one process has used so far, from /proc; 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted from the state field (3).
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** A role of the processes under a tree: the first whose test a process or one of its ancestors passes. */
export interface ProcessRole {
  name: string;
  test: (commandLine: string, pid: number) => boolean;
}

/**
 * CPU seconds used so far by the processes under `root`, by role: each process counts toward the role
 * of its nearest ancestor (itself included) that passes a role's test, else toward `rest`.
 */
export function cpuByRole(root: number, roles: ProcessRole[], rest: string): Map<string, number> {
  const out = new Map<string, number>([...roles.map((r) => [r.name, 0] as [string, number]), [rest, 0]]);
  const role = new Map<number, string>();
  const tree = processTree(root);
  // processTree lists a parent before its children.
  const parent = new Map<number, number>();
  for (const p of tree) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      parent.set(p, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  for (const p of tree) {
    const cmd = commandLine(p);
    const own = roles.find((r) => r.test(cmd, p))?.name;
    const name = own ?? role.get(parent.get(p) ?? -1) ?? rest;
    role.set(p, name);
    out.set(name, (out.get(name) ?? 0) + processCpuSeconds(p));
  }
  return out;
}
