/**
 * Section 1, cold start: every function bundled exactly as a package bundles it (one esbuild build
 * with serverless.yml's custom.esbuild, no code splitting: scripts/serverless-package-bundle.cjs), the
 * size of each minified bundle (the .mjs; the external source map is not shipped to memory), the time
 * to import it in a fresh `node` process (import only, no request), and the @aws-sdk/client-* packages
 * each bundle contains according to the esbuild metafile, with the project modules that import them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { parse } from 'yaml';
import { ROOT } from '../local/runtime';
import { check, fmtKb, fmtMs, markdownTable, onCleanup, summarize, type Row, type SectionResult } from './harness';

/** The packaging plugin's build options (scripts/esbuild-functions.cjs), so what is measured is what ships. */
const bundling = createRequire(import.meta.url)('../scripts/esbuild-functions.cjs') as {
  esbuildOptions(settings: Record<string, unknown>): BuildOptions;
  deployableBuild(settings: Record<string, unknown>, root: string, entries: string[]): BuildOptions;
};

const TABLE_ONLY_MAX = 300 * 1024;
const LARGEST_MAX = 700 * 1024;
/** Clients every function that handles tokens may call: the table, and SSM for the signing secret at cold start. */
const BASE_CLIENTS = new Set(['dynamodb', 'ssm']);

/** serverless.yml's custom.esbuild, its `conditions` variable resolved as serverless resolves it. */
function esbuildSettings(): Record<string, unknown> {
  const sls = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8')) as {
    custom?: { esbuild?: Record<string, unknown>; esbuildConditions?: Record<string, string[]> };
  };
  const settings = { ...(sls.custom?.esbuild ?? {}) };
  // conditions: a Serverless variable that picks the list by TRACING_ENABLED; resolved here as it is
  // with tracing off (the default), or on when the environment says so.
  const conditions = sls.custom?.esbuildConditions;
  if (typeof settings.conditions === 'string' && conditions)
    settings.conditions = conditions[process.env.TRACING_ENABLED === 'true' ? 'true' : 'false'];
  return settings;
}

export function esbuildOptionsFromServerlessYml(): BuildOptions {
  return bundling.esbuildOptions(esbuildSettings());
}

export interface FunctionEntry {
  name: string;
  handler: string;
  entry: string;
  /** SDK clients whose actions the function's IAM statements (serverless.yml custom.iam) allow. */
  iamClients: string[];
}

/** The SDK client an IAM action is called through. */
function clientOfAction(action: string): string | undefined {
  const [service, op] = action.split(':') as [string, string];
  if (service === 'bedrock') return op === 'InvokeModel' || op === 'InvokeModelWithResponseStream' ? 'bedrock-runtime' : 'bedrock';
  if (service === 'sagemaker') return op === 'InvokeEndpoint' || op === 'InvokeEndpointAsync' ? 'sagemaker-runtime' : 'sagemaker';
  if (service === 'monitoring' || service === 'cloudwatch') return 'cloudwatch';
  if (service === 'iam') return undefined;
  return service;
}

function iamStatementClients(): Record<string, string[]> {
  const sls = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8')) as { custom?: { iam?: Record<string, { Action?: string | string[] }> } };
  const out: Record<string, string[]> = {};
  for (const [name, statement] of Object.entries(sls.custom?.iam ?? {})) {
    const actions = Array.isArray(statement.Action) ? statement.Action : statement.Action ? [statement.Action] : [];
    out[name] = [...new Set(actions.map(clientOfAction).filter((c): c is string => !!c))];
  }
  return out;
}

/** Every function of serverless.yml, from functions/<area>/functions.yml. */
export function functionEntries(): FunctionEntry[] {
  const statements = iamStatementClients();
  const out: FunctionEntry[] = [];
  for (const area of readdirSync(join(ROOT, 'functions')).sort()) {
    let text: string;
    try {
      text = readFileSync(join(ROOT, 'functions', area, 'functions.yml'), 'utf8');
    } catch {
      continue;
    }
    const fns = (parse(text) ?? {}) as Record<string, { handler: string; iamRoleStatements?: unknown[] }>;
    for (const [name, fn] of Object.entries(fns)) {
      const base = fn.handler.slice(0, fn.handler.lastIndexOf('.'));
      const iamClients = new Set<string>();
      for (const ref of fn.iamRoleStatements ?? []) {
        const m = /\$\{self:custom\.iam\.([A-Za-z0-9_]+)\}/.exec(String(ref));
        for (const c of (m && statements[m[1] as string]) || []) iamClients.add(c);
      }
      out.push({ name, handler: fn.handler, entry: `${base}.ts`, iamClients: [...iamClients].sort() });
    }
  }
  return out;
}

export interface BundleInfo extends FunctionEntry {
  bytes: number;
  file: string;
  /** @aws-sdk/client-* short names with code in the bundle. */
  clients: string[];
  /** client -> project modules in the bundle that import it directly. */
  importedBy: Record<string, string[]>;
  /** Largest packages in the bundle, bytes. */
  packages: [string, number][];
  importMs?: number[];
}

const packageOf = (path: string): string | undefined => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return m?.[1];
};

function analyse(entry: FunctionEntry, file: string, output: Metafile['outputs'][string], metafile: Metafile): BundleInfo {
  const inputs = Object.entries(output.inputs).filter(([, v]) => v.bytesInOutput > 0);
  const clients = new Set<string>();
  const packages = new Map<string, number>();
  for (const [path, v] of inputs) {
    const pkg = packageOf(path);
    if (pkg) packages.set(pkg, (packages.get(pkg) ?? 0) + v.bytesInOutput);
    const m = /node_modules\/@aws-sdk\/client-([a-z0-9-]+)\//.exec(path);
    if (m) clients.add(m[1] as string);
  }
  const importedBy: Record<string, string[]> = {};
  for (const [path] of inputs) {
    if (path.includes('node_modules')) continue;
    for (const imp of metafile.inputs[path]?.imports ?? []) {
      const m = /^@aws-sdk\/client-([a-z0-9-]+)$/.exec(imp.original ?? '');
      const client = m?.[1] ?? (imp.original === '@aws-sdk/lib-dynamodb' ? 'dynamodb' : undefined);
      if (!client) continue;
      const list = (importedBy[client] ??= []);
      if (!list.includes(path)) list.push(path);
    }
  }
  return {
    ...entry,
    file,
    bytes: statSync(file).size,
    clients: [...clients].sort(),
    importedBy,
    packages: [...packages.entries()].sort((a, b) => b[1] - a[1]),
  };
}

/**
 * One esbuild run with every function as an entry point, as a package builds them. Without code
 * splitting each entry's output is self-contained and tree-shaken on its own: the file a build of that
 * function alone produces, and the one its zip holds.
 */
export async function bundleAll(outDir: string): Promise<BundleInfo[]> {
  const entries = functionEntries();
  const result = await build({
    ...bundling.deployableBuild(
      esbuildSettings(),
      ROOT,
      entries.map((e) => e.entry),
    ),
    outdir: outDir,
    metafile: true,
    write: true,
    logLevel: 'silent',
  });
  const metafile = result.metafile;
  return entries.map((entry) => {
    const output = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint === entry.entry);
    if (!output) throw new Error(`esbuild produced no output for ${entry.entry}`);
    return analyse(entry, join(ROOT, output[0]), output[1], metafile);
  });
}

/** Environment a bundle needs so that core/config and lib/auth/secret load (nothing is called). */
const IMPORT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: os.tmpdir(),
  TABLE_NAME: 'model-ops-bench-cold',
  JWT_SECRET: 'cold-start-benchmark-secret-of-at-least-32-bytes!!',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
  AWS_REGION: 'us-east-1',
  BCRYPT_COST: '10',
  LOG_LEVEL: 'INFO',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Milliseconds to import the bundle in a fresh node process (the process start itself excluded). */
export function importTime(file: string): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write('IMPORT_MS ' + (performance.now() - t));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: IMPORT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const m = /IMPORT_MS ([\d.]+)/.exec(out);
      if (code === 0 && m) resolve(Number(m[1]));
      else reject(new Error(`import of ${file} failed (exit ${code}): ${err.slice(-800)}`));
    });
  });
}

export async function coldStart(options: { runs: number }): Promise<SectionResult> {
  const outDir = mkdtempSync(join(os.tmpdir(), 'model-ops-bench-cold-'));
  const removeDir = () => rmSync(outDir, { recursive: true, force: true });
  const unregister = onCleanup('cold-start bundles', removeDir);
  try {
    process.stderr.write('  bundling every function with the serverless.yml esbuild settings…\n');
    const bundles = await bundleAll(outDir);
    process.stderr.write(`  importing each of ${bundles.length} bundles ${options.runs} times in fresh node processes…\n`);
    // Round-robin, so that drift in the machine's load is spread over every function alike.
    for (const b of bundles) b.importMs = [];
    for (let run = 0; run < options.runs; run++) {
      for (const b of bundles) b.importMs!.push(await importTime(b.file));
    }
    return report(bundles, options.runs);
  } finally {
    removeDir();
    unregister();
  }
}

function report(bundles: BundleInfo[], runs: number): SectionResult {
  const rows: Row[] = [];
  const md: string[][] = [];
  let largest = bundles[0] as BundleInfo;
  const tableOnlyOver: string[] = [];
  const notAllowed: string[] = [];
  const notImported: string[] = [];
  for (const b of [...bundles].sort((x, y) => y.bytes - x.bytes)) {
    if (b.bytes > largest.bytes) largest = b;
    const s = summarize(b.importMs ?? []);
    const tableOnly = b.clients.every((c) => BASE_CLIENTS.has(c));
    const orphan = b.clients.filter((c) => !b.importedBy[c]);
    const extra = b.clients.filter((c) => !b.iamClients.includes(c));
    if (orphan.length) notImported.push(`${b.name}: ${orphan.join(', ')}`);
    if (extra.length) notAllowed.push(`${b.name}: ${extra.join(', ')}`);
    if (tableOnly && b.bytes > TABLE_ONLY_MAX) tableOnlyOver.push(b.name);
    const via = b.clients.map(
      (c) => `${extra.includes(c) ? '**' : ''}${c}${extra.includes(c) ? '**' : ''} (${(b.importedBy[c] ?? ['no project module']).join(', ')})`,
    );
    rows.push({
      section: '1 cold start',
      measure: b.name,
      value: `${fmtKb(b.bytes)}, import ${fmtMs(s.median)}; clients ${b.clients.join(' ') || 'none'}${extra.length ? `; not in its IAM: ${extra.join(' ')}` : ''}`,
      target: tableOnly ? '≤ 300 KB (table only)' : '≤ 700 KB',
      status: check(b.bytes <= (tableOnly ? TABLE_ONLY_MAX : LARGEST_MAX)),
      detail: true,
    });
    md.push([
      b.name,
      (b.bytes / 1024).toFixed(1),
      s.median.toFixed(1),
      s.p99.toFixed(1),
      tableOnly ? 'yes' : 'no',
      via.join('<br>') || '—',
      b.iamClients.join(', ') || '—',
    ]);
  }
  rows.push({
    section: '1 cold start',
    measure: 'largest bundle',
    value: `${largest.name} ${fmtKb(largest.bytes)}`,
    target: '≤ 700 KB',
    status: check(largest.bytes <= LARGEST_MAX),
  });
  rows.push({
    section: '1 cold start',
    measure: 'table-only functions over 300 KB',
    value: (() => {
      const tableOnly = bundles.filter((b) => b.clients.every((c) => BASE_CLIENTS.has(c))).sort((a, b) => a.bytes - b.bytes);
      const smallest = tableOnly[0] ? ` (smallest: ${tableOnly[0].name} ${fmtKb(tableOnly[0].bytes)})` : '';
      return `${tableOnlyOver.length ? `${tableOnlyOver.length} of ${tableOnly.length}` : 'none'}${smallest}`;
    })(),
    target: 'none',
    status: check(tableOnlyOver.length === 0),
  });
  rows.push({
    section: '1 cold start',
    measure: 'bundled SDK clients the function does not call',
    value: notAllowed.length ? `${notAllowed.length} functions (client not allowed by their IAM statements)` : 'none',
    target: 'none',
    status: check(notAllowed.length === 0),
  });

  const byImport = [...bundles].sort((a, b) => summarize(b.importMs ?? []).median - summarize(a.importMs ?? []).median);
  const slowest = byImport[0] as BundleInfo;
  const fastest = byImport.at(-1) as BundleInfo;
  const topPackages = (b: BundleInfo) =>
    b.packages
      .slice(0, 8)
      .map(([p, n]) => `${p} ${fmtKb(n)}`)
      .join(', ');
  const tableOnlyExample = bundles.find((b) => b.name === 'validate') ?? slowest;
  const markdown = [
    `Bundled with esbuild using serverless.yml \`custom.esbuild\` as a package does, in one build without code splitting (${Object.entries(
      esbuildOptionsFromServerlessYml(),
    )
      .filter(([k]) => k !== 'banner')
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join(
        ', ',
      )}, plus the createRequire banner), functions from functions/*/functions.yml. Size: the minified \`.mjs\` (the external source map excluded). Import: \`await import(bundle)\` in a fresh \`node\` process with TABLE_NAME, JWT_SECRET, DYNAMODB_ENDPOINT=http://127.0.0.1:1 and BCRYPT_COST 10 (no request), the process start excluded; median and p99 of ${runs} runs per function, round-robin over the functions.`,
    '',
    `"Table only": the bundle holds no SDK client but DynamoDB and SSM (SSM fetches the signing secret at cold start in deployed stages). "Clients in the bundle" lists each @aws-sdk/client-* package with code in the bundle (esbuild metafile, bytesInOutput > 0) and the project modules in the bundle that import it. By that rule alone every client is "called" (each is imported by a platform module the function imports${notImported.length ? `, except ${notImported.join('; ')}` : ''}); so the column "IAM allows" adds the clients whose actions the function's own iamRoleStatements permit, and a client in **bold** is bundled although the function has no permission to call it, i.e. it never calls it.`,
    '',
    markdownTable(['Function', 'KB', 'Import median ms', 'Import p99 ms', 'Table only', 'Clients in the bundle (imported by)', 'IAM allows'], md),
    '',
    `- Largest bundle: **${largest.name}** ${fmtKb(largest.bytes)} (target ≤ 700 KB: ${largest.bytes <= LARGEST_MAX ? 'met' : 'NOT met'}).`,
    `- Table-only functions over 300 KB: ${tableOnlyOver.length ? tableOnlyOver.join(', ') : 'none'}.`,
    `- Bundled clients outside the function's IAM permissions: ${notAllowed.length ? notAllowed.join('; ') : 'none'}.`,
    `- Slowest import: ${slowest.name} ${fmtMs(summarize(slowest.importMs ?? []).median)}; fastest: ${fastest.name} ${fmtMs(summarize(fastest.importMs ?? []).median)}.`,
    `- Biggest packages in ${tableOnlyExample.name}: ${topPackages(tableOnlyExample)}.`,
    `- Biggest packages in ${largest.name}: ${topPackages(largest)}.`,
  ].join('\n');
  return { rows, markdown };
}
