/**
 * One of the service's local serverless plugins (scripts/serverless-*.cjs), run in this process on the
 * service as the framework would hand it over: the functions of functions/<area>/functions.yml,
 * serverless.yml's `custom.esbuild` with its variables resolved as for a run without tracing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

type ServiceFunction = { handler: string; runtime?: string; package?: { artifact?: string } };

export interface LoadedPlugin {
  hooks: Record<string, () => Promise<void>>;
  functions: Record<string, ServiceFunction>;
  custom: Record<string, unknown>;
  notices: string[];
}

/** The functions of serverless.yml, read from each area's functions.yml as the framework merges them. */
function functionsOfService(root: string): Record<string, ServiceFunction> {
  const functions: Record<string, ServiceFunction> = {};
  for (const area of readdirSync(join(root, 'functions'))) {
    const file = join(root, 'functions', area, 'functions.yml');
    if (existsSync(file)) Object.assign(functions, parse(readFileSync(file, 'utf8')) as Record<string, ServiceFunction>);
  }
  return functions;
}

/**
 * Loads scripts/<file> for the service in `serviceDir` (the checkout, or a copy of it), with the CLI
 * options given (`{ function: 'x' }` for `deploy function -f x`) and `custom.esbuild` settings added.
 */
export function loadPlugin(
  file: string,
  options: { serviceDir?: string; cli?: Record<string, unknown>; esbuild?: Record<string, unknown> } = {},
): LoadedPlugin {
  const serviceDir = options.serviceDir ?? ROOT;
  const yml = parse(readFileSync(join(serviceDir, 'serverless.yml'), 'utf8')) as {
    custom: { esbuild: Record<string, unknown>; esbuildConditions: Record<string, string[]> };
  };
  const custom: Record<string, unknown> = {
    esbuild: { ...yml.custom.esbuild, conditions: yml.custom.esbuildConditions.false, ...options.esbuild },
  };
  const functions = functionsOfService(serviceDir);
  const notices: string[] = [];
  const Plugin = require(join(ROOT, 'scripts', file)) as new (serverless: unknown, cli: unknown, utils: unknown) => Pick<LoadedPlugin, 'hooks'>;
  const plugin = new Plugin(
    {
      serviceDir,
      service: {
        custom,
        provider: { runtime: 'nodejs22.x' },
        getAllFunctions: () => Object.keys(functions),
        getFunction: (name: string) => functions[name],
      },
      pluginManager: { spawn: async () => undefined },
    },
    options.cli ?? {},
    { log: { notice: (line: string) => notices.push(line) } },
  );
  return { hooks: plugin.hooks, functions, custom, notices };
}
