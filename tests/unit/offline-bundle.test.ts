/**
 * scripts/serverless-offline-bundle.cjs: under `serverless offline` every function comes out of one
 * esbuild build with shared chunks, laid out where serverless-offline looks for it, and
 * serverless-esbuild is told to bundle none of them.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

type Fn = { handler: string; skipEsbuild?: boolean; runtime?: string };

/** The functions of serverless.yml, read from each area's functions.yml as the framework merges them. */
function functionsOfService(): Record<string, Fn> {
  const functions: Record<string, Fn> = {};
  for (const area of readdirSync(join(ROOT, 'functions'))) {
    const file = join(ROOT, 'functions', area, 'functions.yml');
    if (existsSync(file)) Object.assign(functions, parse(readFileSync(file, 'utf8')) as Record<string, Fn>);
  }
  return functions;
}

describe('the offline bundle', () => {
  const work = mkdtempSync(join(tmpdir(), 'offline-bundle-'));
  const functions = functionsOfService();
  // serverless.yml's esbuild settings with its variables resolved as for a run without tracing.
  const yml = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8')) as {
    custom: { esbuild: Record<string, unknown>; esbuildConditions: Record<string, string[]> };
  };
  const esbuild = { ...yml.custom.esbuild, conditions: yml.custom.esbuildConditions.false, outputWorkFolder: relative(ROOT, work) };
  const custom: Record<string, unknown> = { esbuild };
  const notices: string[] = [];
  const OfflineBundle = require(join(ROOT, 'scripts', 'serverless-offline-bundle.cjs')) as new (
    serverless: unknown,
    options: unknown,
    utils: unknown,
  ) => { hooks: Record<string, () => Promise<void>> };
  const plugin = new OfflineBundle(
    {
      serviceDir: ROOT,
      service: {
        custom,
        provider: { runtime: 'nodejs22.x' },
        getAllFunctions: () => Object.keys(functions),
        getFunction: (name: string) => functions[name],
      },
      pluginManager: { spawn: async () => undefined },
    },
    {},
    { log: { notice: (line: string) => notices.push(line) } },
  );

  beforeAll(async () => {
    await plugin.hooks['before:offline:start:init']!();
  }, 120_000);
  afterAll(async () => {
    await plugin.hooks['offline:start:end']!();
    // The plugin's watch ran in this process: esbuild's service (a child process) is stopped too, or
    // a rebuild it had under way at dispose keeps it, and with it jest, alive after the run.
    await (require('esbuild') as { stop(): Promise<void> }).stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('bundles every function in one build and tells serverless-esbuild to bundle none', () => {
    const names = Object.keys(functions);
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((n) => functions[n]!.skipEsbuild !== true)).toEqual([]);
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
