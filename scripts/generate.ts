/**
 * `npm run generate`: writes every build product that code imports into generated/ (git-ignored;
 * nobody edits it):
 *
 *   generated/checks/<area>.ts  precompiled request checks of functions/<area>/schemas.ts
 *   generated/checks/http.ts    the same for lib/http/schemas.ts
 *   docs/openapi.yaml           the API contract, from the schemas, routes and handlers (scripts/generate/openapi.ts)
 *   generated/openapi.json      the same document as JSON, served by GET /api/openapi.json
 *   generated/console/api.ts    the web console's API types, from the same document
 *
 * It runs before everything that needs them: `npm start` (through serverless-offline), `npm test`,
 * `npm run typecheck`, `npm run bench`, and `serverless package|deploy|offline|invoke local`
 * (scripts/serverless-generate.cjs). A file is rewritten only when its text changes, so esbuild's and
 * jest's caches stay warm; a file that nothing generates any more is removed. Nothing is rendered
 * when nothing it reads has changed since the last run and generated/ is as that run left it
 * (a stamp in node_modules/.cache: upToDate below), which every start and test run after the first
 * finds: half a second instead of three.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const GENERATED = 'generated';

/** Every generated file: path relative to the root → its text. */
export async function render(root = ROOT): Promise<Map<string, string>> {
  // Loaded only to render (ajv, TypeBox, openapi-typescript): an up-to-date tree needs none of them.
  const { renderChecks, schemasModules } = await import('./generate/checks');
  const { CONSOLE_TYPES_TARGET, renderConsoleTypes } = await import('./generate/console-types');
  const { OPENAPI_SOURCE, OPENAPI_TARGET, openApiDocument, renderOpenApi, renderOpenApiYaml } = await import('./generate/openapi');
  const files = new Map<string, string>();
  for (const module of schemasModules(root)) files.set(module.target, await renderChecks(root, module));
  const document = await openApiDocument(root);
  const yaml = renderOpenApiYaml(document);
  // In CI the committed contract is left as it is, so that tests/unit/openapi-generated.test.ts sees a stale one.
  if (!process.env.CI) files.set(OPENAPI_SOURCE, yaml);
  files.set(OPENAPI_TARGET, renderOpenApi(document));
  // openapi-typescript takes seconds: its output is kept while the contract it was made from is unchanged.
  const types = join(root, CONSOLE_TYPES_TARGET);
  const previous = existsSync(types) ? readFileSync(types, 'utf8') : '';
  const stamp = `// contract ${createHash('sha256').update(yaml).digest('hex')}\n`;
  files.set(CONSOLE_TYPES_TARGET, previous.endsWith(stamp) ? previous : `${await renderConsoleTypes(document)}${stamp}`);
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

/**
 * What a generation reads, so that an unchanged tree is not generated again: every TypeScript file of
 * the folders a schemas module can import from, the contract, the generator itself and the lock file
 * (the versions of TypeBox, ajv and openapi-typescript). Rendering takes seconds (TypeScript loaded
 * through tsx, ajv compiling every schema); hashing these takes milliseconds, and every `npm start`,
 * `npm test` and serverless-offline start asks for a generation.
 */
const INPUT_FOLDERS = ['core', 'lib', 'tables', 'functions', 'scripts/generate'];
const INPUT_FILES = ['serverless.yml', 'scripts/generate.ts', 'package-lock.json'];
const STAMP = join('node_modules', '.cache', 'model-ops', 'generated.json');

export function inputsHash(root: string): string {
  const files = [
    ...INPUT_FOLDERS.flatMap((folder) => filesUnder(join(root, folder)).filter((f) => f.endsWith('.ts') || f.endsWith('functions.yml'))),
    ...INPUT_FILES.map((f) => join(root, f)),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(root, file));
    hash.update('\0');
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update('(missing)');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The generation the stamp describes is in place: its inputs unchanged, and every output as it wrote it, nothing else. */
export function upToDate(root: string, inputs: string): boolean {
  let stamp: { inputs?: string; outputs?: Record<string, string> };
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8')) as typeof stamp;
  } catch {
    return false;
  }
  if (stamp.inputs !== inputs || !stamp.outputs) return false;
  const outputs = Object.entries(stamp.outputs);
  if (filesUnder(join(root, GENERATED)).length !== outputs.filter(([path]) => path.startsWith(`${GENERATED}/`)).length) return false;
  return outputs.every(([path, hash]) => {
    try {
      return sha256(readFileSync(join(root, path), 'utf8')) === hash;
    } catch {
      return false;
    }
  });
}

/** Records what was generated from which inputs (after `write`), for `upToDate`. */
export function stamp(root: string, inputs: string, files: Map<string, string>): void {
  mkdirSync(dirname(join(root, STAMP)), { recursive: true });
  const outputs = Object.fromEntries([...files].map(([path, text]) => [path, sha256(text)]));
  writeFileSync(join(root, STAMP), JSON.stringify({ inputs, outputs }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const inputs = inputsHash(ROOT);
  if (!upToDate(ROOT, inputs)) {
    const files = await render();
    const { written, removed } = write(files);
    for (const path of written) console.log(`generated ${path}`);
    for (const path of removed) console.log(`removed ${path}`);
    stamp(ROOT, inputs, files);
  }
}
