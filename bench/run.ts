/**
 * `npm run bench`: every section, one table on stdout, the figures in docs/benchmarks.md.
 *
 *   npm run bench                                  all sections, full counts (load: 20 s per endpoint)
 *   npm run bench -- --load-seconds 60             the 60-second load run
 *   npm run bench -- --only cold,warm,capacity,growth,login,load,console,stack,ceiling,reconcile,gateway
 *   npm run bench -- --quick                       smaller counts: a smoke run, not reference figures
 *
 * Everything runs on loopback: DynamoDB Local (in memory) and the emulator on free ports, started
 * once for the in-process sections and reused by serverless-offline for the load section. Every
 * child is stopped on every exit path (normal end, error, Ctrl-C, SIGTERM, the overall time limit).
 * Progress goes to stderr; stdout carries only the table.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../local/runtime';
import { cleanupAll, installExitHandlers, machine, markdownTable, renderTable, type Row, type SectionResult } from './harness';

const SECTIONS = [
  'cold',
  'warm',
  'capacity',
  'growth',
  'login',
  'load',
  'console',
  'stack',
  'ceiling',
  'reconcile',
  'gateway',
  'resolution',
  'sidebyside',
  'startup',
  'template',
  'callcost',
  'routes',
  'breakdown',
] as const;
/** Sections that run their own stack (a real npm start, a package run) and need no in-process runtime. */
const SELF_CONTAINED: readonly Section[] = ['cold', 'sidebyside', 'startup', 'template'];
type Section = (typeof SECTIONS)[number];

const TITLES: Record<Section, string> = {
  cold: '1. Cold start',
  warm: '2. Warm per-request time, in process',
  capacity: '3. Capacity per request',
  growth: '4. Growth',
  login: '5. Login',
  load: '6. Under load through serverless-offline',
  console: '7. Web console',
  stack: '8. The local stack under chat load',
  ceiling: '9. Predicted ceiling',
  reconcile: '10. One reconciliation pass',
  gateway: '11. The OpenAI-compatible gateway',
  resolution: '12. A gateway call at fleet scale',
  sidebyside: '13. The gateway beside Portkey',
  startup: '14. npm start until it answers',
  template: '15. The CloudFormation stack',
  callcost: '16. What a gateway call costs to serve',
  routes: '17. Routes and fallbacks',
  breakdown: '18. The spend breakdown',
};

interface Args {
  only: Section[];
  quick: boolean;
  loadSeconds: number;
  write: boolean;
  /** `before`: the figures go to each section's "before" block (a run of older code, issue 24). */
  variant?: string;
  /** The document to write (default docs/benchmarks.md of this checkout). */
  doc?: string;
  /** Section 13: also profile where the CPU goes. */
  profile: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { only: [...SECTIONS], quick: false, loadSeconds: 20, write: true, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const value = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') args.quick = true;
    else if (a === '--profile') args.profile = true;
    else if (a.startsWith('--variant')) {
      const v = value();
      if (!/^[a-z][a-z0-9-]*$/.test(v)) throw new Error('--variant takes a short lower-case name, e.g. before');
      args.variant = v;
    } else if (a.startsWith('--doc')) args.doc = value();
    else if (a === '--no-write') args.write = false;
    else if (a.startsWith('--only')) {
      const list = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = list.filter((s) => !(SECTIONS as readonly string[]).includes(s));
      if (unknown.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; choose from ${SECTIONS.join(', ')}`);
      args.only = SECTIONS.filter((s) => list.includes(s));
    } else if (a.startsWith('--load-seconds')) {
      const n = Number(value());
      if (!Number.isFinite(n) || n < 1 || n > 600) throw new Error('--load-seconds takes 1 to 600');
      args.loadSeconds = n;
    } else if (a === '--help' || a === '-h') {
      console.log(
        `npm run bench -- [--quick] [--only ${SECTIONS.join(',')}] [--load-seconds N] [--no-write] [--profile] [--variant before --doc PATH]`,
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (args.quick && !argv.some((a) => a.startsWith('--load-seconds'))) args.loadSeconds = 5;
  return args;
}

async function runSection(section: Section, args: Args): Promise<SectionResult> {
  const q = args.quick;
  switch (section) {
    case 'cold':
      return (await import('./cold')).coldStart({ runs: q ? 3 : 10 });
    case 'warm':
      return (await import('./warm')).warm({
        n: q ? 100 : 1000,
        chatN: q ? 50 : 1000,
        chatMinN: q ? 50 : 500,
        warmup: q ? 10 : 50,
        budgetMs: q ? 60_000 : 180_000,
      });
    case 'capacity':
      return (await import('./capacity')).capacity({ repeats: 3 });
    case 'growth':
      return (await import('./growth')).growth({ small: 100, large: q ? 2000 : 10_000, n: q ? 30 : 200, warmup: q ? 5 : 20 });
    case 'login':
      return (await import('./login')).login({ n: q ? 20 : 200, warmup: q ? 2 : 5, validateN: q ? 100 : 1000 });
    case 'load':
      return (await import('./load')).load({ quick: q, seconds: args.loadSeconds, warmupRequests: q ? 64 : 96, connections: 32 });
    case 'console':
      return (await import('./console')).consoleLoad({ runs: q ? 3 : 10 });
    case 'stack': {
      const { startStreamAggregator } = await import('../local/runtime');
      return (await import('./stack')).stack({
        seconds: args.loadSeconds,
        connections: 16,
        warmupRequests: q ? 32 : 48,
        startPoller: async (env) => {
          const aggregator = await startStreamAggregator({ env });
          return { pid: aggregator.process.pid as number, stop: () => aggregator.stop() };
        },
      });
    }
    case 'ceiling':
      return (await import('./ceiling')).ceiling({ batch: q ? 20 : 100 });
    case 'reconcile':
      return (await import('./reconcile')).reconcileCost({ sizes: q ? [10, 50] : [20, 200] });
    case 'gateway':
      return (await import('./gateway')).gateway({ n: q ? 40 : 300, httpN: q ? 20 : 150, warmup: q ? 5 : 20 });
    case 'resolution':
      return (await import('./resolution')).resolution({ small: 10, large: q ? 200 : 2000, repeats: q ? 3 : 5 });
    case 'sidebyside':
      return (await import('./sidebyside')).sideBySide({
        calls: q ? 200 : 1000,
        rounds: q ? 2 : 4,
        connections: 16,
        warmup: q ? 32 : 64,
        profile: args.profile,
      });
    case 'startup':
      return (await import('./startup')).startup({ second: q ? 1 : 3 });
    case 'template':
      return (await import('./template')).template();
    case 'callcost':
      return (await import('./callcost')).callCost({ repeats: q ? 3 : 5 });
    case 'routes':
      return (await import('./routes')).routes({ repeats: q ? 3 : 5 });
    case 'breakdown':
      return (await import('./breakdown')).breakdownCost({ sizes: [10, q ? 10_000 : 100_000] });
  }
}

// ------------------------------------------------------------------------------------ docs

const DOC = join(ROOT, 'docs', 'benchmarks.md');

/** The code measured: its commit, and whether the work tree differs from it. */
function revision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return `commit ${commit}${dirty ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'commit unknown';
  }
}
const begin = (s: string) => `<!-- bench:${s}:begin -->`;
const end = (s: string) => `<!-- bench:${s}:end -->`;

function skeleton(): string {
  return [
    '# Benchmarks',
    '',
    'Figures from `npm run bench` (bench/run.ts). The sections between the `bench:` markers are',
    'rewritten by each run that includes them, each stamped with its date, mode and machine; text outside',
    'the markers is kept. Benchmarks are programs, not tests: they never gate CI.',
    '',
    '```',
    'npm run bench                          # every section, full counts; load runs 20 s per endpoint',
    'npm run bench -- --load-seconds 60     # the 60-second load run',
    'npm run bench -- --only warm,capacity  # some sections: cold, warm, capacity, growth, login, load, console, stack, ceiling, reconcile, gateway',
    'npm run bench -- --quick               # smoke run with small counts (figures not for reference)',
    '```',
    '',
    '## Targets at a glance',
    '',
    begin('summary'),
    end('summary'),
    '',
    ...SECTIONS.flatMap((s) => [`## ${TITLES[s]}`, '', begin(s), '_Not run yet._', end(s), '']),
  ].join('\n');
}

function replaceBlock(doc: string, section: string, content: string): string {
  const b = begin(section);
  const e = end(section);
  const i = doc.indexOf(b);
  const j = doc.indexOf(e);
  if (i < 0 || j < i) {
    // A variant's block (`<section>:before`) goes right after its section's own block.
    const after = section.includes(':') ? doc.indexOf(end(section.slice(0, section.indexOf(':')))) : -1;
    if (after >= 0) {
      const at = after + end(section.slice(0, section.indexOf(':'))).length;
      return `${doc.slice(0, at)}\n\n${b}\n${content}\n${e}${doc.slice(at)}`;
    }
    return `${doc.trimEnd()}\n\n${b}\n${content}\n${e}\n`;
  }
  return `${doc.slice(0, i + b.length)}\n${content}\n${doc.slice(j)}`;
}

function block(doc: string, section: string): string | undefined {
  const i = doc.indexOf(begin(section));
  const j = doc.indexOf(end(section));
  return i < 0 || j < i ? undefined : doc.slice(i + begin(section).length, j);
}

// Each section block carries its rows as JSON in a comment, so the summary can be rebuilt from every
// section's latest run even when this run did only some of them.
const ROWS = /<!-- rows (.*?) -->/s;
const RUN = /<!-- run (.*?) -->/;

function writeDoc(
  results: Partial<Record<Section, SectionResult>>,
  errors: Partial<Record<Section, string>>,
  rowsBySection: Partial<Record<Section, Row[]>>,
  args: Args,
): void {
  const m = machine();
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const mode = args.quick ? 'quick' : 'full';
  const variant = args.variant ? ` ${args.variant}` : '';
  const stamp = `_Run ${when}${args.variant ? ` (**${args.variant}**)` : ''}, ${args.quick ? '**quick (smoke) mode: small counts, not reference figures**' : 'full mode'}; ${revision()}; ${m.cpu} × ${m.cores}, ${m.memory} RAM, Node ${m.node}, ${m.os}._`;
  const file = args.doc ?? DOC;
  let doc = existsSync(file) ? readFileSync(file, 'utf8') : skeleton();
  for (const s of args.only) {
    const body = results[s]?.markdown ?? `**The section failed:** \`${(errors[s] ?? 'unknown error').replace(/`/g, "'")}\``;
    const rows = (rowsBySection[s] ?? []).map((r) => ({ ...r, value: r.value.replace(/-->/g, '->') }));
    doc = replaceBlock(
      doc,
      args.variant ? `${s}:${args.variant}` : s,
      `<!-- run ${when} ${mode}${variant} -->\n<!-- rows ${JSON.stringify(rows)} -->\n${stamp}\n\n${body}`,
    );
  }
  const summaryRows: (string | number)[][] = [];
  // Each section's latest run, then its "before" run where there is one (issue 24's figures).
  for (const s of SECTIONS.flatMap((x) => [x, `${x}:before`])) {
    const content = block(doc, s);
    if (!content) continue;
    let rows: Row[];
    try {
      rows = JSON.parse(ROWS.exec(content)?.[1] ?? '[]') as Row[];
    } catch {
      rows = [];
    }
    const run = RUN.exec(content)?.[1] ?? '';
    for (const r of rows) {
      if (r.detail || (r.status !== 'met' && r.status !== 'not met')) continue;
      summaryRows.push([r.section, r.measure, r.value, r.target ?? '', r.status === 'met' ? 'yes' : '**no**', run]);
    }
  }
  const summary = summaryRows.length
    ? markdownTable(['Section', 'Measure', 'Value', 'Target', 'Met', 'Run'], summaryRows)
    : '_No targets measured yet._';
  doc = replaceBlock(
    doc,
    'summary',
    `Every row with a target, from each section's latest run (the "Run" column: date and mode; quick runs are smoke runs).\n\n${summary}`,
  );
  writeFileSync(file, doc);
}

// ------------------------------------------------------------------------------------ main

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  // Generous but bounded: the slowest parts are the cold-start imports and serverless-offline's start.
  const limitMs = (args.quick ? 20 : 60) * 60_000 + args.loadSeconds * 4 * 1000;
  installExitHandlers(limitMs);
  const m = machine();
  process.stderr.write(`bench: ${args.only.join(', ')}${args.quick ? ' (quick)' : ''} on ${m.cpu} × ${m.cores}, ${m.memory}, Node ${m.node}\n`);

  const results: Partial<Record<Section, SectionResult>> = {};
  const errors: Partial<Record<Section, string>> = {};
  const rows: Row[] = [];
  const rowsBySection: Partial<Record<Section, Row[]>> = {};
  try {
    if (args.only.some((s) => !SELF_CONTAINED.includes(s))) {
      process.stderr.write('starting DynamoDB Local and the emulator…\n');
      await (await import('./harness')).startLocalRuntime();
    }
    for (const section of args.only) {
      const started = performance.now();
      process.stderr.write(`\n[${TITLES[section]}]\n`);
      try {
        const result = await runSection(section, args);
        results[section] = result;
        rowsBySection[section] = result.rows;
        rows.push(...result.rows);
      } catch (err) {
        const message = (err as Error).message ?? String(err);
        errors[section] = message;
        const failed: Row = {
          section: TITLES[section].replace(/^(\d)\. .*/, '$1 ') + section,
          measure: 'FAILED',
          value: message.split('\n')[0]!.slice(0, 160),
          status: 'not met',
        };
        rowsBySection[section] = [failed];
        rows.push(failed);
        console.error(err);
      }
      process.stderr.write(`  (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
    }
  } finally {
    await cleanupAll();
  }

  console.log(`\n${renderTable(rows)}\n`);
  if (args.write) {
    writeDoc(results, errors, rowsBySection, args);
    process.stderr.write(`figures written to ${args.doc ?? DOC}\n`);
  }
  return Object.keys(errors).length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(err);
    await cleanupAll();
    process.exit(1);
  },
);
