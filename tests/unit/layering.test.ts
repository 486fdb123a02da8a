import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { ROOT } from '../../local/runtime';

/**
 * The layer rules of .dependency-cruiser.cjs, run as part of `npm test` (`npm run lint` runs the same
 * rules with ESLint and Prettier): the tree as it is has no violation, and each rule bites on a
 * small tree that breaks it, so a rule that stopped matching anything would fail here too.
 */
const require = createRequire(import.meta.url);
const { forbidden: rules, options } = require(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
const LAYERS = ['core', 'tables', 'lib', 'functions', 'local', 'scripts', 'bench', 'tests', 'console'];

async function cruiseTree(baseDir: string, paths: string[]): Promise<ICruiseResult> {
  const previous = process.cwd();
  process.chdir(baseDir);
  try {
    const { output } = await cruise(paths, {
      ...options,
      validate: true,
      ruleSet: { forbidden: rules },
      tsConfig: { fileName: join(ROOT, 'tsconfig.json') },
    });
    return output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
}

async function violations(baseDir: string, paths: string[]): Promise<string[]> {
  return (await cruiseTree(baseDir, paths)).summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

/** The whole tree, cruised once for the tests that read it (a cruise parses every file: the file's main cost). */
let tree: Promise<ICruiseResult> | undefined;
const wholeTree = () => (tree ??= cruiseTree(ROOT, LAYERS));

test('the tree has no upward import, no cycle and no dev code in a Lambda', async () => {
  expect((await wholeTree()).summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
}, 60_000);

describe('each rule refuses the import it names', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'layering-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function check(files: Record<string, string>): Promise<string[]> {
    const root = mkdtempSync(join(dir, 'case-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return violations(root, ['.']);
  }

  test('tables/ importing lib/ (the data layer speaking HTTP) is refused', async () => {
    const found = await check({
      'lib/http/errors.ts': 'export class Conflict extends Error {}\n',
      'tables/users.ts': "import { Conflict } from '../lib/http/errors';\nexport const taken = () => new Conflict();\n",
    });
    expect(found).toContain('tables-below-lib: tables/users.ts -> lib/http/errors.ts');
  });

  test('an entity module importing a write that spans entities is refused; another such write may', async () => {
    const found = await check({
      'tables/teams.ts': 'export const memberKey = (t: string) => ({ PK: t });\n',
      'tables/writes/team-keys.ts': "import { memberKey } from '../teams';\nexport const createTeamKey = () => memberKey('t');\n",
      'tables/writes/turns.ts': "import { createTeamKey } from './team-keys';\nexport const turn = createTeamKey;\n",
      'tables/keys.ts': "import { createTeamKey } from './writes/team-keys';\nexport const insert = createTeamKey;\n",
    });
    expect(found).toEqual(['entities-below-writes: tables/keys.ts -> tables/writes/team-keys.ts']);
  });

  test('lib/ importing functions/ is refused', async () => {
    const found = await check({
      'functions/deploy/schemas.ts': 'export type Body = { name: string };\nexport const x = 1;\n',
      'lib/deploy/managed.ts': "import { x } from '../../functions/deploy/schemas';\nexport const y = x;\n",
    });
    expect(found).toContain('lib-below-functions: lib/deploy/managed.ts -> functions/deploy/schemas.ts');
  });

  test('a handler reaching into tables/ past lib/ is refused', async () => {
    const found = await check({
      'tables/audit.ts': 'export const list = () => [];\n',
      'functions/admin/list-audit.ts': "import { list } from '../../tables/audit';\nexport const handler = list;\n",
    });
    expect(found).toContain('handlers-through-lib: functions/admin/list-audit.ts -> tables/audit.ts');
  });

  test('core/ depending on a layer above it is refused', async () => {
    const found = await check({
      'tables/client.ts': 'export const db = 1;\n',
      'core/config.ts': "import { db } from '../tables/client';\nexport const config = db;\n",
    });
    expect(found).toContain('core-is-the-floor: core/config.ts -> tables/client.ts');
  });

  test('a Lambda importing the dev runtime is refused', async () => {
    const found = await check({
      'local/runtime.ts': 'export const ROOT = "/";\n',
      'lib/paths.ts': "import { ROOT } from '../local/runtime';\nexport const root = ROOT;\n",
    });
    expect(found).toContain('nothing-shipped-imports-dev-code: lib/paths.ts -> local/runtime.ts');
  });

  test('a cycle is refused wherever it is', async () => {
    const found = await check({
      'lib/http/stack.ts': "import { log } from './middlewares/log';\nexport type Event = { a: number };\nexport const stack = log;\n",
      'lib/http/middlewares/log.ts': "import type { Event } from '../stack';\nexport const log = (e: Event) => e;\n",
    });
    expect(found.some((v) => v.startsWith('no-cycles:'))).toBe(true);
  });

  test('domain code importing lib/http (choosing a status) is refused; the edge may', async () => {
    const found = await check({
      'lib/http/errors.ts': 'export class HttpError extends Error {}\n',
      'lib/deploy/managed.ts': "import { HttpError } from '../http/errors';\nexport const e = new HttpError();\n",
      'lib/gateway/models.ts': "import { HttpError } from '../http/errors';\nexport const f = new HttpError();\n",
    });
    expect(found).toEqual(['domain-below-http: lib/deploy/managed.ts -> lib/http/errors.ts']);
  });

  test("generic code reaching into a platform's endpoints is refused; the registry and the platform's own deploy may", async () => {
    const found = await check({
      'lib/platforms/dedicated/endpoints.ts': 'export const dedicatedEndpoints = 1;\n',
      'lib/platforms/endpoints.ts':
        "import { dedicatedEndpoints } from './dedicated/endpoints';\nexport const endpointsOf = () => dedicatedEndpoints;\n",
      'lib/deploy/dedicated.ts': "import { dedicatedEndpoints } from '../platforms/dedicated/endpoints';\nexport const d = dedicatedEndpoints;\n",
      'lib/resources/sync.ts': "import { dedicatedEndpoints } from '../platforms/dedicated/endpoints';\nexport const s = dedicatedEndpoints;\n",
    });
    expect(found).toEqual(['endpoints-through-the-registry: lib/resources/sync.ts -> lib/platforms/dedicated/endpoints.ts']);
  });

  test('a domain building on a /v1 entry point is refused', async () => {
    const found = await check({
      'lib/gateway/completions.ts': 'export const completion = 1;\n',
      'lib/chat/turn.ts': "import { completion } from '../gateway/completions';\nexport const t = completion;\n",
    });
    expect(found).toContain('edge-above-everything: lib/chat/turn.ts -> lib/gateway/completions.ts');
  });

  test('the metered call importing an entry point or a domain is refused', async () => {
    const found = await check({
      'lib/chat/context.ts': 'export const context = 1;\n',
      'lib/platforms/types.ts': 'export const types = 1;\n',
      'lib/calls/metered.ts':
        "import { context } from '../chat/context';\nimport { types } from '../platforms/types';\nexport const m = [context, types];\n",
    });
    expect(found).toEqual(['metered-call-below-domains: lib/calls/metered.ts -> lib/chat/context.ts']);
  });

  test('a foundation importing what is built on it is refused', async () => {
    const found = await check({
      'lib/calls/metered.ts': 'export const m = 1;\n',
      'lib/budgets/reservations.ts': "import { m } from '../calls/metered';\nexport const r = m;\n",
    });
    expect(found).toContain('foundations-at-the-bottom: lib/budgets/reservations.ts -> lib/calls/metered.ts');
  });

  test('lib/errors.ts importing anything of lib/ is refused', async () => {
    const found = await check({
      'lib/platforms/types.ts': 'export const types = 1;\n',
      'lib/errors.ts': "import { types } from './platforms/types';\nexport const e = types;\n",
    });
    expect(found).toContain('domain-errors-are-the-floor: lib/errors.ts -> lib/platforms/types.ts');
  });
});

/** lib/'s folders as a graph: folder -> the folders its modules import. */
async function libFolders(): Promise<Map<string, Set<string>>> {
  const folder = (path: string) => /^lib\/([^/]+)\//.exec(path)?.[1];
  const graph = new Map<string, Set<string>>();
  for (const m of (await wholeTree()).modules) {
    const from = folder(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = folder(d.resolved);
      if (to && to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** The loops of a graph: each set of nodes that reach each other (Tarjan's strongly connected components of more than one node). */
function loops(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no two folders of lib/ import each other, directly or through others', async () => {
  const graph = await libFolders();
  expect(graph.size).toBeGreaterThan(10);
  expect(loops(graph)).toEqual([]);
  // The check finds a loop when there is one.
  expect(
    loops(
      new Map([
        ['chat', new Set(['conversations'])],
        ['conversations', new Set(['chat'])],
      ]),
    ),
  ).toEqual([['chat', 'conversations']]);
}, 60_000);

describe('keys, raw items and the DynamoDB SDK stay in tables/ (ESLint)', () => {
  let lint: (file: string, code: string) => Promise<string[]>;
  beforeAll(async () => {
    const [{ Linter }, { default: config }, tseslint] = await Promise.all([
      import('eslint'),
      import(join(ROOT, 'eslint.config.js')) as Promise<{ default: { files?: string[]; rules?: Record<string, unknown> }[] }>,
      import('typescript-eslint'),
    ]);
    // The rule exactly as the project configures it for lib/, functions/ and core/.
    const restriction = config.find((c) => c.files?.includes('lib/**/*.ts') && c.rules?.['no-restricted-imports'])?.rules?.['no-restricted-imports'];
    const linter = new Linter({ configType: 'flat' });
    lint = async (file, code) =>
      linter
        .verify(
          code,
          [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-imports': restriction as 'error' } }],
          file,
        )
        .map((m) => m.message);
  });

  test('a key builder imported into lib/ is refused', async () => {
    expect(await lint('lib/chat/turn.ts', "import { threadKey } from '../../tables/conversations';\nthreadKey('a', 'b');\n")).toHaveLength(1);
  });

  test('a raw-item converter imported into lib/ is refused', async () => {
    expect(await lint('lib/chat/turn.ts', "import { resourceFromItem } from '../../tables/resources';\nresourceFromItem({});\n")).toHaveLength(1);
  });

  test('the DynamoDB document client imported into lib/ is refused', async () => {
    expect(await lint('lib/usage/service.ts', "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nnew GetCommand({} as never);\n")).toHaveLength(1);
  });

  test('a named access pattern and an entity type are what lib/ may import', async () => {
    expect(
      await lint(
        'lib/chat/turn.ts',
        "import { readTurnContext, type TurnContext } from '../../tables/writes/turns';\nexport const f = (c: TurnContext) => [c, readTurnContext];\n",
      ),
    ).toEqual([]);
  });
});
