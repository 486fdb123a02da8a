/**
 * `npm run generate`: writes every build product that code imports into generated/ (git-ignored;
 * nobody edits it):
 *
 *   generated/checks/<area>.ts  precompiled request checks of functions/<area>/schemas.ts
 *   generated/checks/http.ts    the same for lib/http/schemas.ts
 *   generated/openapi.json      docs/openapi.yaml as JSON, served by GET /api/openapi.json
 *   generated/console/api.ts    the web console's API types, from docs/openapi.yaml
 *
 * It runs before everything that needs them: `npm start` (through serverless-offline), `npm test`,
 * `npm run typecheck`, `npm run bench`, and `serverless package|deploy|offline|invoke local`
 * (scripts/serverless-generate.cjs). A file is rewritten only when its text changes, so esbuild's and
 * jest's caches stay warm; a file that nothing generates any more is removed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChecks, schemasModules } from './generate/checks';
import { CONSOLE_TYPES_TARGET, renderConsoleTypes } from './generate/console-types';
import { OPENAPI_SOURCE, OPENAPI_TARGET, renderOpenApi } from './generate/openapi';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const GENERATED = 'generated';

/** Every generated file: path relative to the root → its text. */
export async function render(root = ROOT): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const module of schemasModules(root)) files.set(module.target, await renderChecks(root, module));
  files.set(OPENAPI_TARGET, renderOpenApi(readFileSync(join(root, OPENAPI_SOURCE), 'utf8')));
  // openapi-typescript takes seconds: its output is kept while it is newer than the contract.
  const types = join(root, CONSOLE_TYPES_TARGET);
  const fresh = existsSync(types) && statSync(types).mtimeMs >= statSync(join(root, OPENAPI_SOURCE)).mtimeMs;
  files.set(CONSOLE_TYPES_TARGET, fresh ? readFileSync(types, 'utf8') : await renderConsoleTypes(join(root, OPENAPI_SOURCE)));
  return files;
}

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/**
 * Writes `files` under `outRoot` (the repository root by default), leaving unchanged files untouched,
 * and removes what else lies in its generated/ folder. Returns the paths written and removed.
 */
export function write(files: Map<string, string>, outRoot = ROOT): { written: string[]; removed: string[] } {
  const written: string[] = [];
  for (const [path, text] of files) {
    const file = join(outRoot, path);
    let current: string | undefined;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // not generated yet
    }
    if (current === text) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    written.push(path);
  }
  const removed: string[] = [];
  for (const file of filesUnder(join(outRoot, GENERATED))) {
    const path = relative(outRoot, file).split('\\').join('/');
    if (files.has(path)) continue;
    rmSync(file);
    removed.push(path);
  }
  return { written, removed };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { written, removed } = write(await render());
  for (const path of written) console.log(`generated ${path}`);
  for (const path of removed) console.log(`removed ${path}`);
}
