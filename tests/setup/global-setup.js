import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Starts tests/setup/test-runtime.ts (DynamoDB Local, emulator, and serverless-offline when the e2e
 * project runs) and hands its endpoints to the test workers through the environment. Plain JS on
 * purpose: jest loads it without any transform.
 */
export default async function globalSetup(globalConfig) {
  const projects = globalConfig.selectProjects;
  const e2e = process.env.SKIP_E2E !== '1' && (!projects || projects.includes('e2e'));
  const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'tests', 'setup', 'test-runtime.ts'), ...(e2e ? ['--e2e'] : [])], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  globalThis.__TEST_RUNTIME__ = child;
  const env = await new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.startsWith('READY '));
      if (line) resolve(JSON.parse(line.slice(6)));
    });
    child.on('exit', (code) => reject(new Error(`The test runtime exited with code ${code} before it was ready:\n${buffer}`)));
  });
  child.stdout.resume();
  Object.assign(process.env, env, { BCRYPT_COST: '4', LOG_LEVEL: 'SILENT' });
}
