/**
 * scripts/serverless-offline-bundle.cjs: under `serverless offline` every function comes out of one
 * esbuild build with shared chunks, laid out where serverless-offline looks for it.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, loadPlugin } from '../helpers/serverless-plugin';

const require = createRequire(import.meta.url);

describe('the offline bundle', () => {
  const work = mkdtempSync(join(tmpdir(), 'offline-bundle-'));
  const { hooks, functions, custom, notices } = loadPlugin('serverless-offline-bundle.cjs', { esbuild: { outputWorkFolder: relative(ROOT, work) } });

  beforeAll(async () => {
    await hooks['before:offline:start:init']!();
  }, 120_000);
  afterAll(async () => {
    await hooks['offline:start:end']!();
    // The plugin's watch ran in this process: esbuild's service (a child process) is stopped too, or
    // a rebuild it had under way at dispose keeps it, and with it jest, alive after the run.
    await (require('esbuild') as { stop(): Promise<void> }).stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('bundles every function in one build', () => {
    const names = Object.keys(functions);
    expect(names.length).toBeGreaterThan(40);
    expect(notices).toEqual([expect.stringMatching(new RegExp(`^Bundled ${names.length} functions in one build`))]);
  });

  it('lays each function out where serverless-offline looks for its handler, beside shared chunks', () => {
    const location = (custom['serverless-offline'] as { location: string }).location;
    expect(join(ROOT, location)).toBe(join(work, '.build'));
    for (const fn of Object.values(functions)) {
      expect(existsSync(join(work, '.build', `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.mjs`))).toBe(true);
    }
    expect(readdirSync(join(work, '.build', 'chunks')).some((f) => f.endsWith('.mjs'))).toBe(true);
  });

  it('produces bundles that run: the 404 route answers', async () => {
    const mod = (await import(pathToFileURL(join(work, '.build', 'functions', 'system', 'not-found.mjs')).href)) as {
      handler: (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
    };
    const { call } = await import('../helpers/invoke');
    const res = await call(mod.handler, { method: 'GET', path: '/api/nowhere' });
    expect(res.status).toBe(404);
  });
});
