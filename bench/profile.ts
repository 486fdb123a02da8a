/**
 * Where the local stack's CPU goes per call (section 13 with --profile): three views of one window of
 * calls, taken while nothing else runs in the stack.
 *
 *   - CPU per thread, from /proc/<pid>/task: each process's threads by name (a Node process's main
 *     thread, its worker threads, V8's and libuv's helpers; a JVM's request threads, garbage collector,
 *     JIT compilers), as user + system time over the window.
 *   - V8 CPU profiles of every Node thread (bench/cpu-profile.cjs, preloaded through NODE_OPTIONS and
 *     switched on and off through a file), each sample's self time attributed to a category of code:
 *     the frame itself or, for V8 builtins and native code, the nearest caller with a source. Frames
 *     in the esbuild bundles are mapped back to their original file through the bundle's source map
 *     (node:module SourceMap), so the AWS SDK, Powertools, Middy and the service's own code show apart.
 *   - DynamoDB Local: a Java Flight Recorder recording (jcmd JFR.start/JFR.dump), its execution
 *     samples attributed to a category by the packages on each sample's stack.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../local/runtime';
import { markdownTable, processTree } from './harness';

export const PRELOAD = join(ROOT, 'bench', 'cpu-profile.cjs');

// ------------------------------------------------------------------------------------ threads

const TICKS = 100;

/** CPU seconds so far of every thread of a process, by thread name (digits folded: "GC Thread#0" → "GC Thread#"). */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
      const key = Number(tid) === pid ? `${name} (main thread)` : name.replace(/\d+/g, '#');
      out.set(key, (out.get(key) ?? 0) + seconds);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function threadCpuOfTree(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of processTree(root)) for (const [k, v] of threadCpu(pid)) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

export function diff(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
}

// ------------------------------------------------------------------------------------ V8 profiles

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Opens and closes a profiling window in every preloaded thread (bench/cpu-profile.cjs). */
export async function profileWindow<T>(dir: string, label: string, fn: () => Promise<T>): Promise<T> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'window'), label);
  // Every thread polls the file every 200 ms.
  await new Promise((r) => setTimeout(r, 600));
  try {
    return await fn();
  } finally {
    writeFileSync(join(dir, 'window'), '');
    await new Promise((r) => setTimeout(r, 1500));
  }
}

const sourceMaps = new Map<string, SourceMap | null>();
function sourceMapOf(file: string): SourceMap | null {
  if (!sourceMaps.has(file)) {
    let map: SourceMap | null = null;
    try {
      if (existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(file, map);
  }
  return sourceMaps.get(file) ?? null;
}

/** The original source of a frame in a bundle (through its source map), or its own url. */
function originalSource(frame: CallFrame): string {
  const url = frame.url;
  if (!url.startsWith('file://') || !/\.(m?js)$/.test(url) || !url.includes('.build')) return url;
  const map = sourceMapOf(fileURLToPath(url));
  if (!map) return url;
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
  return entry?.originalSource ?? url;
}

const CATEGORIES: [string, RegExp][] = [
  [
    'worker message passing (serverless-offline ↔ handler thread)',
    /worker-thread-runner|node:internal\/worker|messageport|node:internal\/per_context\/messageport/i,
  ],
  [
    'serverless-offline: invocation (in-process runner, context, env)',
    /serverless-offline\/src\/lambda\/(handler-runner\/in-process-runner|LambdaFunction|LambdaContext|HandlerRunner)/,
  ],
  ['serverless-offline: HTTP event and response (payload v2)', /serverless-offline\/src\/events\/http/],
  ['serverless-offline: other', /serverless-offline\//],
  ['hapi (HTTP server)', /@hapi\//],
  ['esbuild (watch)', /node_modules\/esbuild\//],
  ['serverless framework', /node_modules\/serverless\//],
  ['logging (Powertools logger)', /@aws-lambda-powertools\/logger/],
  ['metrics (Powertools metrics)', /@aws-lambda-powertools\/metrics/],
  ['Powertools (commons)', /@aws-lambda-powertools\//],
  ['AWS SDK: DynamoDB client, document marshalling, SigV4, HTTP handler', /@aws-sdk\/|@smithy\/|@aws-crypto\//],
  ['Middy', /@middy\//],
  ['JWT (jose)', /node_modules\/jose\//],
  ['service code (functions, lib, tables, core, generated checks)', /(^|\/)(functions|lib|tables|core|generated)\//],
  ['local runtime (front door, function URL, emulator, stream poller)', /(^|\/)local\//],
  ['tsx (TypeScript loader)', /node_modules\/tsx\//],
  [
    'Node HTTP, net and streams',
    /node:(_http|http|https|net|stream|internal\/(http|streams|stream_base|net|js_stream))|node:internal\/deps\/undici|undici/,
  ],
  ['Node timers, events, promises', /node:(internal\/)?(timers|events|process\/task_queues|async_hooks)/],
  ['Node file system, modules', /node:(internal\/)?(fs|modules|url|path)/],
  ['Node (other)', /^node:/],
];

function category(source: string): string {
  for (const [name, re] of CATEGORIES) if (re.test(source)) return name;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (pkg) return `dependency: ${pkg}`;
  return source ? `other: ${source.split('/').slice(-2).join('/')}` : 'V8 builtins with no caller';
}

/** Self time (ms) of one profile, by category. */
function profileCategories(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const memo = new Map<number, string>();
  const categoryOf = (id: number): string => {
    const cached = memo.get(id);
    if (cached) return cached;
    const node = byId.get(id) as ProfileNode;
    const f = node.callFrame;
    let name: string;
    if (f.functionName === '(idle)') name = 'idle';
    else if (f.functionName === '(garbage collector)') name = 'garbage collector';
    else if (f.functionName === '(program)') name = 'V8 and native code (no JavaScript frame)';
    else if (!f.url) name = parent.has(id) ? categoryOf(parent.get(id) as number) : 'V8 builtins with no caller';
    else name = category(originalSource(f));
    memo.set(id, name);
    return name;
  };
  const out = new Map<string, number>();
  for (const [id, us] of selfUs) out.set(categoryOf(id), (out.get(categoryOf(id)) ?? 0) + us / 1000);
  return out;
}

export interface ProfileSummary {
  /** Per profile file: the process (script) and thread, and ms by category. */
  threads: { file: string; script: string; thread: string; ms: Map<string, number> }[];
}

export function readProfiles(dir: string, label: string): ProfileSummary {
  const threads: ProfileSummary['threads'] = [];
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(`${label}.`) || !file.endsWith('.cpuprofile')) continue;
    // <label>.<script>.<pid>.<thread>.cpuprofile; the script's name may contain dots, the label not.
    const parts = file.slice(0, -'.cpuprofile'.length).split('.');
    const thread = parts.at(-1) as string;
    const script = parts.slice(1, -2).join('.');
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    threads.push({ file, script, thread, ms: profileCategories(profile) });
  }
  return { threads };
}

/** The profiles' categories summed over the threads of the processes whose script matches, per call (ms). */
export function categoriesPerCall(summary: ProfileSummary, scriptTest: (script: string) => boolean, calls: number) {
  const main = new Map<string, number>();
  const workers = new Map<string, number>();
  for (const t of summary.threads) {
    if (!scriptTest(t.script)) continue;
    const into = t.thread === 'main' ? main : workers;
    for (const [k, v] of t.ms) into.set(k, (into.get(k) ?? 0) + v / calls);
  }
  return { main, workers };
}

export function categoryTable(columns: [string, Map<string, number>][]): string {
  const names = new Set<string>();
  for (const [, m] of columns) for (const k of m.keys()) if (k !== 'idle') names.add(k);
  const total = (name: string) => columns.reduce((a, [, m]) => a + (m.get(name) ?? 0), 0);
  const rows = [...names].filter((n) => total(n) >= 0.02).sort((a, b) => total(b) - total(a));
  return markdownTable(
    ['Category (self time, ms per call)', ...columns.map(([c]) => c)],
    [
      ...rows.map((n) => [n, ...columns.map(([, m]) => (m.get(n) ?? 0).toFixed(2))]),
      [
        'all but idle',
        ...columns.map(([, m]) =>
          [...m]
            .filter(([k]) => k !== 'idle')
            .reduce((a, [, v]) => a + v, 0)
            .toFixed(2),
        ),
      ],
    ],
  );
}

// ------------------------------------------------------------------------------------ JFR

/** Starts a Flight Recorder recording in a running JVM (jcmd; the JDK's own tool). */
export function jfrStart(pid: number): boolean {
  try {
    execFileSync('jcmd', [String(pid), 'JFR.start', 'name=bench', 'settings=profile'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

const JVM_CATEGORIES: [string, RegExp][] = [
  ['SQLite (the on-disk table: sqlite4java)', /com\.almworks\.sqlite4java/],
  ['JSON (Jackson: request and response bodies)', /com\.fasterxml\.jackson|com\.amazonaws\.transform|Json/],
  ['expressions (condition, update, projection parsing: ANTLR)', /antlr|Expression|\.parser\./],
  ['request signing and validation', /Auth|Signer|Validator|validation/],
  ['Jetty (HTTP server)', /org\.eclipse\.jetty/],
  ['streams (GetRecords, DescribeStream)', /[Ss]tream/],
  ['DynamoDB Local: items, indexes, transactions', /com\.amazonaws\.services\.dynamodbv2/],
  ['JDK', /^(java|javax|jdk|sun)\./],
];

/**
 * Stops the recording and attributes its execution samples: each sample to the first category (in
 * the order above) whose pattern a frame of its stack matches, innermost frame first.
 */
export function jfrStop(pid: number, dir: string): { samples: number; categories: Map<string, number>; topFrames: Map<string, number> } | undefined {
  const file = join(dir, `dynamodb-${pid}.jfr`);
  try {
    execFileSync('jcmd', [String(pid), 'JFR.dump', 'name=bench', `filename=${file}`], { stdio: 'ignore', timeout: 120_000 });
    execFileSync('jcmd', [String(pid), 'JFR.stop', 'name=bench'], { stdio: 'ignore', timeout: 60_000 });
    const json = execFileSync('jfr', ['print', '--json', '--stack-depth', '64', '--events', 'jdk.ExecutionSample', file], {
      encoding: 'utf8',
      maxBuffer: 1024 * 1024 * 1024,
    });
    const events = (
      JSON.parse(json) as { recording: { events: { values: { stackTrace?: { frames: { method: { type: { name: string }; name: string } }[] } } }[] } }
    ).recording.events;
    const categories = new Map<string, number>();
    const topFrames = new Map<string, number>();
    for (const e of events) {
      const frames = (e.values.stackTrace?.frames ?? []).map((f) => `${f.method.type.name}.${f.method.name}`);
      const top = frames[0] ?? '?';
      topFrames.set(top, (topFrames.get(top) ?? 0) + 1);
      let name = 'other';
      outer: for (const [cat, re] of JVM_CATEGORIES) {
        for (const f of frames) {
          if (re.test(f)) {
            name = cat;
            break outer;
          }
        }
      }
      categories.set(name, (categories.get(name) ?? 0) + 1);
    }
    rmSync(file, { force: true });
    return { samples: events.length, categories, topFrames };
  } catch (err) {
    process.stderr.write(`  JFR failed: ${(err as Error).message.split('\n')[0]}\n`);
    return undefined;
  }
}
