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

async function violations(baseDir: string, paths: string[]): Promise<string[]> {
  const previous = process.cwd();
  process.chdir(baseDir);
  try {
    const { output } = await cruise(paths, {
      ...options,
      validate: true,
      ruleSet: { forbidden: rules },
      tsConfig: { fileName: join(ROOT, 'tsconfig.json') },
    });
    return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  } finally {
    process.chdir(previous);
  }
}

test('the tree has no upward import, no cycle and no dev code in a Lambda', async () => {
  expect(await violations(ROOT, LAYERS)).toEqual([]);
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
});

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
        "import { readTurnContext, type TurnContext } from '../../tables/turns';\nexport const f = (c: TurnContext) => [c, readTurnContext];\n",
      ),
    ).toEqual([]);
  });
});
