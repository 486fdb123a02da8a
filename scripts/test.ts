/**
 * `npm test`: the whole suite, in two runs of jest started together.
 *
 *   1. unit, build and integration, three files at a time on the two cores: every integration file
 *      works in a table of its own and starts its own emulator where it injects faults, so files run
 *      side by side unseen by each other. An integration file waits on DynamoDB Local for each of its
 *      requests (about half its time, run alone), so two of them leave the cores partly idle once the
 *      second run is over; a third keeps them busy to the end (docs/testing.md: 341 s with two, 327 s
 *      with three, the same 646 CPU-s);
 *   2. e2e and browser, one file at a time: they share one serverless-offline, one seeded admin and
 *      one console, as `npm start` runs them.
 *
 * The second run mostly waits (on serverless-offline, the functions' worker threads, Chromium), so it
 * runs beside the first from the start rather than after it: both are over about 200 s sooner than
 * when it started at the first run's last file (docs/testing.md). The two runs share nothing but the
 * checkout: each has its own DynamoDB Local, emulator and tables. The second run's output is held
 * until the first has finished, so each run reads as it would alone.
 *
 * Arguments (files, -t, --selectProjects, ...) go to a single run of jest as given, as before:
 * `npm test -- tests/integration/teams.test.ts`. JEST_WORKERS overrides the first run's three workers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// As package.json's `jest` script. --max-semi-space-size: jest's processes (its workers inherit the
// flag) allocate fast and briefly (the SDK's requests, the handlers); V8's young generation at 64 MB
// rather than its default 16 collects less often: the garbage collector's share of a profile of the
// fuzz property file went from 4.5 % to 2.9 % of its CPU (docs/testing.md).
const JEST = [
  '--experimental-vm-modules',
  '--disable-warning=ExperimentalWarning',
  '--max-semi-space-size=64',
  join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
];
// Held output keeps its colours when the terminal has them.
const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) };

const exited = (child: ChildProcess): Promise<number> =>
  new Promise((resolve) => child.on('close', (status, signal) => resolve(status ?? (signal ? 1 : 0))));

const args = process.argv.slice(2);
if (args.length > 0) {
  const child = spawn(process.execPath, [...JEST, ...args], { cwd: ROOT, stdio: 'inherit', env });
  process.exit(await exited(child));
}

const workers = process.env.JEST_WORKERS ?? '3';
const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);

const first = spawn(process.execPath, [...JEST, '--selectProjects', 'unit', 'build', 'integration', `--maxWorkers=${workers}`], {
  cwd: ROOT,
  stdio: 'inherit',
  env,
});
const firstDone = exited(first);

/** The e2e and browser run, its output held (in order, stdout and stderr as they came) while the first runs. */
let held: { stream: NodeJS.WriteStream; chunk: Buffer }[] | undefined = [];
const second = spawn(process.execPath, [...JEST, '--selectProjects', 'e2e', 'browser', '--maxWorkers=1'], {
  cwd: ROOT,
  stdio: ['inherit', 'pipe', 'pipe'],
  env,
});
let secondSeconds: number | undefined;
const relay = (stream: NodeJS.WriteStream) => (chunk: Buffer) => (held ? held.push({ stream, chunk }) : stream.write(chunk));
second.stdout?.on('data', relay(process.stdout));
second.stderr?.on('data', relay(process.stderr));
const secondDone = exited(second).then((status) => {
  secondSeconds = seconds();
  return status;
});

const firstStatus = await firstDone;
const firstSeconds = seconds();
for (const { stream, chunk } of held ?? []) stream.write(chunk);
held = undefined;
const secondStatus = await secondDone;
console.log(`\nnpm test: ${seconds()} s in all (unit, build, integration: ${firstSeconds} s; e2e, browser: ${secondSeconds} s; side by side)`);
process.exit(firstStatus || secondStatus);
