import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * What a run needs is started only when a project that uses it will run: serverless-offline for e2e
 * and browser (it takes a few seconds), DynamoDB Local and the OpenID provider for those and
 * integration. The unit and build projects need the emulator alone, so `npm run test:unit` starts no
 * Java at all.
 */
function selected(globalConfig, project) {
  const projects = globalConfig.selectProjects ?? projectsFromArgv();
  return !projects || projects.includes(project);
}

function projectsFromArgv() {
  const argv = process.argv;
  const at = argv.findIndex((a) => a === '--selectProjects' || a.startsWith('--selectProjects='));
  if (at < 0) return undefined;
  if (argv[at].includes('=')) return argv[at].split('=')[1].split(',');
  const names = [];
  for (let i = at + 1; i < argv.length && !argv[i].startsWith('-'); i++) names.push(argv[i]);
  return names;
}

/**
 * Starts tests/setup/test-runtime.ts (DynamoDB Local, emulator, serverless-offline when the e2e or
 * browser project runs, the console's front door when the browser project runs) and hands its
 * endpoints to the test workers through the environment. Plain JS on purpose: jest loads it without
 * any transform.
 */
export default async function globalSetup(globalConfig) {
  const e2e = process.env.SKIP_E2E !== '1' && selected(globalConfig, 'e2e');
  const browser = process.env.SKIP_E2E !== '1' && selected(globalConfig, 'browser');
  const database = e2e || browser || selected(globalConfig, 'integration');
  // A DynamoDB Local per worker when integration files run side by side without the e2e stack.
  const perWorker = database && !e2e && !browser && globalConfig.maxWorkers > 1 ? [`--dynamo-instances=${globalConfig.maxWorkers}`] : [];
  const flags = [...(e2e ? ['--e2e'] : []), ...(browser ? ['--console'] : []), ...(database ? [] : ['--emulator-only']), ...perWorker];
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'tests', 'setup', 'test-runtime.ts'), ...flags],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: true,
    },
  );
  globalThis.__TEST_RUNTIME__ = child;
  const env = await new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.startsWith('READY '));
      if (line) resolve(JSON.parse(line.slice(6)));
    });
    child.on('exit', (code) => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`The test runtime exited with code ${code} before it was ready:\n${buffer}`));
    });
  });
  child.stdout.resume();
  // TEST_RUNTIME_PID: tests that look at what the runtime's processes listen on (tests/e2e/local-stack.e2e.test.ts).
  Object.assign(process.env, env, {
    TEST_RUNTIME_PID: String(child.pid),
    BCRYPT_COST: '4',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
}
