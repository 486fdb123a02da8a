/**
 * What a new user meets first on the local stack, over HTTP through serverless-offline and the front
 * door: the settings serverless-offline must hand the functions (it passes on only AWS_* of its own
 * environment and what serverless.yml declares), and the README's client snippets, run as written.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stateChangeWords } from '../../lib/resources/timing';
import { http, loginAsAdmin } from './http';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const suffix = Math.random().toString(36).slice(2, 8);
let admin: string;

beforeAll(async () => {
  admin = await loginAsAdmin();
});

test('a dedicated deploy plan says how long the emulated platform takes (DEDICATED_STATE_CHANGE_SECONDS reaches the functions), not SageMaker’s minutes', async () => {
  // The test stack's emulator changes state at once: DEDICATED_STATE_CHANGE_SECONDS=0 (local/runtime.ts).
  expect(process.env.DEDICATED_STATE_CHANGE_SECONDS).toBe('0');
  const plan = await http('POST', '/api/deploy/dedicated', {
    token: admin,
    body: {
      endpointName: `settings-${suffix}`,
      instanceType: 'ml.g5.xlarge',
      modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1',
    },
  });
  expect(plan.status).toBe(200);
  expect(plan.raw).toContain(`Creating for ${stateChangeWords(0)}`);
  expect(plan.raw).not.toContain('5 to 10 minutes');
});

/** The README's fenced blocks of `language`, in order. */
function readmeBlocks(language: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);
}

test('the README’s Node snippet runs as a .js file and prints the model’s answer', async () => {
  const snippet = readmeBlocks('js').find((b) => b.includes("require('openai')") && b.includes('<endpoint-name>'));
  expect(snippet).toBeDefined();
  const model = `settings-hosted-${suffix}`;
  const deployed = await http('POST', '/api/deploy/hosted', {
    token: admin,
    body: { modelId: 'meta/llama-3.1-8b-instruct', endpointName: model, dryRun: false },
  });
  expect(deployed.status).toBe(200);
  const key = await http('POST', '/api/keys', { token: admin, body: { name: `settings-${suffix}` } });
  expect(key.status).toBe(201);

  const dir = mkdtempSync(join(tmpdir(), 'readme-snippet-'));
  try {
    const file = join(dir, 'chat.js');
    const door = process.env.E2E_FRONT_DOOR_URL as string;
    writeFileSync(file, (snippet as string).replace('http://localhost:3000', door).replace('<endpoint-name>', model));
    // As a user runs it: `node chat.js` with MO_KEY set and the openai package installed (here: the project's).
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [file],
        { cwd: dir, env: { PATH: process.env.PATH, MO_KEY: key.body.key as string, NODE_PATH: join(ROOT, 'node_modules') }, timeout: 60_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    expect(output.trim().length).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the README’s Python snippet imports what it uses', () => {
  const snippet = readmeBlocks('python').find((b) => b.includes('from openai import OpenAI'));
  expect(snippet).toMatch(/^import os$/m);
  expect(snippet).toMatch(/^print\(/m);
});
