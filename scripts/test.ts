/**
 * `npm test`: the whole suite, in two runs of jest.
 *
 *   1. unit, build and integration, two files at a time: every integration file works in a table of
 *      its own and starts its own emulator where it injects faults, so files run side by side unseen
 *      by each other, and while one waits on DynamoDB Local the other has the CPU;
 *   2. e2e and browser, one file at a time: they share one serverless-offline, one seeded admin and
 *      one console, as `npm start` runs them.
 *
 * Arguments (files, -t, --selectProjects, ...) go to a single run of jest as given, as before:
 * `npm test -- tests/integration/teams.test.ts`. JEST_WORKERS overrides the first run's two workers.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const jest = (args: string[]): number => {
  const node = ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), ...args];
  const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const { status, signal } = spawnSync(process.execPath, node, { cwd: ROOT, stdio: 'inherit', env });
  return status ?? (signal ? 1 : 0);
};

const args = process.argv.slice(2);
if (args.length > 0) process.exit(jest(args));

const workers = process.env.JEST_WORKERS ?? '2';
const started = Date.now();
const first = jest(['--selectProjects', 'unit', 'build', 'integration', `--maxWorkers=${workers}`]);
const second = jest(['--selectProjects', 'e2e', 'browser', '--maxWorkers=1']);
console.log(`\nnpm test: ${Math.round((Date.now() - started) / 1000)} s in all (unit, build, integration; then e2e, browser)`);
process.exit(first || second);
