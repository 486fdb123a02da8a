/**
 * The console's build: the typed API client's types from docs/openapi.yaml (`npm run generate` writes
 * them into the git-ignored generated/console/api.ts), then Vite's production build into console/dist.
 *
 *   npm run console:build          types and the build
 *
 * `ensureConsoleBuilt()` is what `npm start`, the test runtime and the benchmarks call: it builds only
 * when console/dist is missing or older than anything it is made from.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONSOLE_DIR = join(ROOT, 'console');
export const CONSOLE_DIST = join(CONSOLE_DIR, 'dist');
const CONTRACT = join(ROOT, 'docs', 'openapi.yaml');
// What the build reads: a change to any of these makes console/dist stale.
const SOURCES = [
  join(CONSOLE_DIR, 'src'),
  join(CONSOLE_DIR, 'index.html'),
  join(CONSOLE_DIR, 'vite.config.ts'),
  join(CONSOLE_DIR, 'public'),
  CONTRACT,
  join(ROOT, 'package-lock.json'),
];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

/** The API types, generated from the contract (with everything else generated/ holds). */
export async function generateApiTypes(): Promise<void> {
  const { render, write } = await import('../../scripts/generate');
  write(await render());
}

export function consoleBuildIsFresh(): boolean {
  const built = join(CONSOLE_DIST, 'index.html');
  return existsSync(built) && statSync(built).mtimeMs >= Math.max(...SOURCES.map(newest));
}

export async function buildConsole(options: { quiet?: boolean } = {}): Promise<void> {
  await generateApiTypes();
  const { build } = await import('vite');
  await build({ configFile: join(CONSOLE_DIR, 'vite.config.ts'), logLevel: options.quiet ? 'warn' : 'info' });
}

/** Builds the console when its build is missing or older than its sources; says what it did. */
export async function ensureConsoleBuilt(options: { quiet?: boolean; log?: (line: string) => void } = {}): Promise<'fresh' | 'built'> {
  if (consoleBuildIsFresh()) return 'fresh';
  options.log?.('Building the console (console/dist)…');
  await buildConsole(options);
  return 'built';
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildConsole().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
