/**
 * Section 14, `npm start` until it answers (issue 24): the time from running `npm start` to the first
 * answer of a function through the front door (GET /api/openapi.json, 200), on the first start after
 * `npm install` and on a second start.
 *
 * The first start is a fresh clone's: the checkout's files (tracked and new, as they are in the work
 * tree) copied into a temporary folder, node_modules hard-linked in (`cp -al`, without the caches tools
 * keep in it), so there is no .data, no bundle, no console build, no generated/, and a TMPDIR of its
 * own (tsx's transform cache lives there). Then, in that same copy, `npm start` again: the second
 * start (the console built, the table and the admin there). Each is a real `npm start` with ports of
 * its own (bench/npm-start.ts), stopped as Ctrl-C stops it; the phases are read from what it prints
 * (the time each line appeared).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../local/runtime';
import { check, loadAverage, markdownTable, onCleanup, summarize, type Row, type SectionResult } from './harness';
import { startStack, type RunningStack } from './npm-start';

export interface StartupOptions {
  /** Second starts measured (the median is reported). */
  second: number;
}

/** A fresh clone's tree: the work tree's files without what git ignores, node_modules hard-linked. */
export function freshCopy(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(`copy ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    const from = join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the work tree, not yet in the index
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(from, join(dir, file), { dereference: false });
  }
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  for (const cache of ['.cache', '.vite', '.vite-temp']) rmSync(join(dir, 'node_modules', cache), { recursive: true, force: true });
  return dir;
}

interface Start {
  answeredMs: number;
  phases: [string, number][];
  stopMs: number;
  leftovers: number;
  load: string;
}

/** The time each phase began, from the lines npm start prints while it starts. */
function phasesOf(stack: RunningStack): [string, number][] {
  const marks: [string, RegExp][] = [
    ['console build', /console/i],
    ['DynamoDB Local', /Starting DynamoDB Local/],
    ['table', /^Table /],
    ['stream aggregator', /Starting the stream aggregator/],
    ['serverless-offline', /Starting serverless-offline/],
    ['bundled', /Bundled \d+ functions|Bundling|esbuild/i],
    ['banner', /Model Operations Service is up|is up on/],
  ];
  const out: [string, number][] = [];
  for (const [name, re] of marks) {
    const line = stack.lines.find((l) => re.test(l.text.trim()));
    if (line) out.push([name, line.ms]);
  }
  return out.sort((a, b) => a[1] - b[1]);
}

async function once(copy: string, env: Record<string, string>): Promise<Start> {
  const load = loadAverage();
  const stack = await startStack({
    root: copy,
    dataDir: join(copy, '.data'),
    workFolder: '.esbuild-offline-local',
    env,
    timeoutMs: 600_000,
  });
  const { stopMs, leftovers } = await stack.stop();
  return { answeredMs: stack.answeredMs, phases: phasesOf(stack), stopMs, leftovers, load };
}

export async function startup(options: StartupOptions): Promise<SectionResult> {
  process.stderr.write('  copying the checkout as a fresh clone (node_modules hard-linked)…\n');
  const copy = freshCopy('model-ops-bench-start-');
  const env = {
    TMPDIR: join(copy, '.tmp'),
    ADMIN_PASSWORD: 'Bench-start-Pw1!',
    RECONCILE_INTERVAL_SECONDS: '0',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  mkdirSync(env.TMPDIR, { recursive: true });
  process.stderr.write('  first start (no .data, no bundles, no console build, no generated/)…\n');
  const first = await once(copy, env);
  process.stderr.write(`  first start answered after ${(first.answeredMs / 1000).toFixed(1)} s\n`);
  const seconds: Start[] = [];
  for (let i = 0; i < options.second; i++) {
    process.stderr.write(`  second start${options.second > 1 ? ` (${i + 1} of ${options.second})` : ''}…\n`);
    seconds.push(await once(copy, env));
    process.stderr.write(`  answered after ${((seconds.at(-1) as Start).answeredMs / 1000).toFixed(1)} s\n`);
  }
  const second = summarize(seconds.map((s) => s.answeredMs));
  const S = '14 npm start';
  const leftovers = first.leftovers + seconds.reduce((a, s) => a + s.leftovers, 0);
  const rows: Row[] = [
    {
      section: S,
      measure: 'second start: npm start → first answer',
      value: `${(second.median / 1000).toFixed(1)} s${seconds.length > 1 ? ` (median of ${seconds.length}, max ${(second.max / 1000).toFixed(1)} s)` : ''}; load ${seconds[0]?.load}`,
      target: '≤ 15 s',
      status: check(second.median <= 15_000),
    },
    {
      section: S,
      measure: 'first start after npm install: npm start → first answer',
      value: `${(first.answeredMs / 1000).toFixed(1)} s; load ${first.load}`,
      target: '≤ 60 s',
      status: check(first.answeredMs <= 60_000),
    },
    {
      section: S,
      measure: 'processes left after Ctrl-C',
      value: String(leftovers),
      target: 'none',
      status: check(leftovers === 0),
    },
  ];
  const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const all: [string, Start][] = [
    ['first start', first],
    ...seconds.map((s, i): [string, Start] => [`second start${seconds.length > 1 ? ` #${i + 1}` : ''}`, s]),
  ];
  const markdown = [
    "A real `npm start` in a fresh copy of the checkout (its files as in the work tree, node_modules hard-linked, a TMPDIR of its own), with ports of its own and the reconciler off, timed from the spawn of `npm start` to the first 200 of GET /api/openapi.json through the front door (a function's answer, its worker's cold start included). The first start has no .data, no bundles, no console build and no generated/; the second runs in the same copy after the first was stopped with SIGINT (Ctrl-C). Phases: when each line npm start prints first appeared (since the spawn).",
    '',
    markdownTable(
      ['Start', 'Answered after', 'Phases (line seen at)', 'Stop (SIGINT → exit)', 'Left behind', 'Load average before'],
      all.map(([name, s]) => [name, fmt(s.answeredMs), s.phases.map(([p, ms]) => `${p} ${fmt(ms)}`).join(', '), fmt(s.stopMs), s.leftovers, s.load]),
    ),
  ].join('\n');
  return { rows, markdown };
}
