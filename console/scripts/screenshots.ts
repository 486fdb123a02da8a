/**
 * `npm run console:screenshots`: pictures of the console's main pages for the README and docs,
 * taken in Debian's Chromium (playwright-core) at 1280 × 800 (and one at 375 px wide), against a
 * throw-away local stack (tests/setup/test-runtime.ts --console: DynamoDB Local in memory, the
 * emulator, serverless-offline and the front door) seeded with a little activity through the API.
 * Writes docs/screenshots/*.png.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { invokeOffline, scheduledEvent } from '../../local/runtime';
import { launchChromium } from './chromium';
import { CONSOLE_DIR } from './build';

const ROOT = join(CONSOLE_DIR, '..');
const OUT = join(ROOT, 'docs', 'screenshots');

async function startStack(): Promise<{ env: Record<string, string>; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'tests', 'setup', 'test-runtime.ts'), '--console'],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: true,
    },
  );
  const stop = () => {
    try {
      process.kill(-(child.pid as number), 'SIGTERM');
    } catch {
      // gone
    }
  };
  process.on('exit', stop);
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.startsWith('READY '));
      if (line) resolve(JSON.parse(line.slice(6)) as Record<string, string>);
    });
    child.on('exit', (code) => reject(new Error(`the local stack exited (${code}) before it was ready`)));
  });
  return { env, stop };
}

async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function shot(page: Page, name: string, fullPage = false) {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage });
  process.stderr.write(`  docs/screenshots/${name}.png\n`);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  process.stderr.write('Starting a local stack…\n');
  const { env, stop } = await startStack();
  const base = env.E2E_CONSOLE_URL as string;
  const admin = { username: env.E2E_ADMIN_USERNAME as string, password: env.E2E_ADMIN_PASSWORD as string };
  try {
    const token = (await call(base, 'POST', '/api/auth/login', undefined, admin)).token as string;
    const haiku = await call(base, 'POST', '/api/deploy/managed', token, {
      modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
      endpointName: 'support-haiku',
      dryRun: false,
    });
    await call(base, 'POST', '/api/deploy/hosted', token, { modelId: 'meta/llama-3.1-8b-instruct', dryRun: false });
    const pkg = (await call(base, 'GET', '/api/models/dedicated?source=all&max=5', token)).models[0].modelPackageArn;
    const dedicated = await call(base, 'POST', '/api/deploy/dedicated', token, {
      endpointName: 'summariser-g5',
      instanceType: 'ml.g5.xlarge',
      modelPackageArn: pkg,
      dryRun: false,
    });
    await call(base, 'GET', `/api/resources/${dedicated.id}/status`, token);
    await call(base, 'POST', '/api/keys', token, { name: 'laptop', monthly_budget_usd: 5 });
    // An endpoint left on the platform by a deploy whose record was lost, found by a reconciliation pass.
    const orphan = await fetch(`${env.EMULATOR_URL}/_emulator/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'forgotten-llama-g5',
        instanceType: 'ml.g5.2xlarge',
        tags: { 'managed-by': 'model-ops', 'model-ops:stage': 'e2e' },
      }),
    });
    if (!orphan.ok) throw new Error(`emulator endpoint: ${orphan.status}`);
    await invokeOffline(env.E2E_LAMBDA_URL as string, 'model-ops-e2e-reconcile', scheduledEvent());
    const ada = await call(base, 'POST', '/api/admin/users', token, {
      username: 'ada',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      role: 'admin',
      password: 'a-long-password',
    });
    const me = (await call(base, 'GET', '/api/auth/validate', token)).user;
    const ml = (await call(base, 'POST', '/api/teams', token, { name: 'ml', monthly_budget_usd: 200, rpm_limit: 600, tpm_limit: 500_000 })).team;
    await call(base, 'POST', '/api/teams', token, { name: 'research', monthly_budget_usd: 50 });
    await call(base, 'POST', `/api/teams/${ml.id}/members`, token, { user_id: me.id, role: 'owner' });
    await call(base, 'POST', `/api/teams/${ml.id}/members`, token, { user_id: ada.user.id, role: 'member', monthly_budget_usd: 40 });
    await call(base, 'POST', '/api/keys', token, { name: 'ml-batch', team_id: ml.id, rpm_limit: 120 });
    for (const [title, questions] of [
      ['Customer support', ['How do I reset my password?', 'And if I no longer have access to my e-mail?', 'Thanks! How long does it take?']],
      ['Release notes draft', ['Summarise these changes for a release note: faster login, a web console.']],
    ] as const) {
      const conv = await call(base, 'POST', '/api/conversations', token, {
        title,
        use_case: 'support',
        deployed_resource: {
          resource_name: 'support-haiku',
          resource_type: 'managed',
          cloud_resource_id: 'anthropic.claude-3-haiku-20240307-v1:0',
          region: 'us-east-1',
          estimated_hourly_cost: 0,
        },
      });
      let threadId: string | undefined;
      for (const message of questions) {
        const turn = await call(base, 'POST', '/api/chat/thread', token, {
          message,
          conversationId: conv.conversation_id,
          resourceId: haiku.id,
          ...(threadId ? { threadId } : {}),
        });
        threadId = turn.threadId;
      }
    }

    const browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      await page.goto(`${base}/`);
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      await shot(page, 'login');
      await page.getByLabel('Username or e-mail').fill(admin.username);
      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('region', { name: 'Managed models' }).waitFor();
      await shot(page, 'models');
      await page.goto(`${base}/model?platform=managed&id=${encodeURIComponent('anthropic.claude-3-haiku-20240307-v1:0')}`);
      await page.getByRole('heading', { name: 'Usage through this service' }).waitFor();
      await shot(page, 'model-detail');
      await page.goto(`${base}/deploy/dedicated`);
      await page.getByLabel('Model package').locator('option').nth(1).waitFor({ state: 'attached' });
      await page.getByLabel('Model package').selectOption({ index: 1 });
      await page.getByLabel('Endpoint name').fill('summariser-g5-staging');
      await page.getByRole('button', { name: 'Review the plan' }).click();
      await page.getByLabel('Estimated cost').waitFor();
      await shot(page, 'deploy-plan', true);
      await page.goto(`${base}/resources`);
      await page.getByRole('region', { name: 'Resources' }).waitFor();
      await shot(page, 'resources');
      await page.goto(`${base}/resources/${dedicated.id}`);
      await page.getByRole('heading', { name: 'Metrics' }).waitFor();
      await shot(page, 'resource-detail');
      await page.goto(`${base}/chat`);
      await page.getByRole('link', { name: 'Customer support' }).click();
      await page.getByLabel('Reply figures').first().waitFor();
      await shot(page, 'chat');
      await page.goto(`${base}/usage`);
      await page
        .getByRole('figure', { name: /by conversation/ })
        .locator('canvas')
        .waitFor();
      await page.waitForTimeout(300);
      await shot(page, 'usage', true);
      await page.goto(`${base}/admin/users`);
      await page.getByRole('region', { name: 'Users' }).waitFor();
      await shot(page, 'admin-users');
      await page.goto(`${base}/admin/credentials`);
      await page.getByRole('button', { name: 'Copy the curl example' }).first().waitFor();
      await shot(page, 'admin-credentials');
      await page.goto(`${base}/keys`);
      await page.getByRole('region', { name: 'Your API keys' }).waitFor();
      await shot(page, 'keys');
      await page.goto(`${base}/teams`);
      await page.getByRole('region', { name: 'Teams' }).waitFor();
      await shot(page, 'teams');
      await page.goto(`${base}/teams/${ml.id}`);
      await page.getByRole('region', { name: 'Members' }).waitFor();
      await shot(page, 'team-detail', true);
      await page.goto(`${base}/admin/orphans`);
      await page.getByRole('region', { name: 'Orphan endpoints' }).waitFor();
      await shot(page, 'admin-orphans');
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto(`${base}/resources`);
      await page.getByRole('region', { name: 'Resources' }).waitFor();
      await shot(page, 'resources-375px');
    } finally {
      await browser.close();
    }
  } finally {
    stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
