/**
 * Request checks: every exported TypeBox object schema of a schemas module (functions/<area>/schemas.ts,
 * lib/http/schemas.ts) precompiled into ajv's standalone validation code, so that no schema compiler
 * runs (or is bundled) in a Lambda. Each module becomes one file under generated/checks/, with what
 * lib/http/validation.ts needs beside each validator to convert query strings and word errors.
 *
 * The TypeBox schemas stay the source of truth: a check's static type is its schema's (type-only
 * import), and the OpenAPI contract test compares the schemas with docs/openapi.yaml.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kind, type TSchema } from '@sinclair/typebox';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

export interface SchemasModule {
  /** The hand-written module, relative to the repository root. */
  source: string;
  /** Its checks, relative to the repository root. */
  target: string;
}

/** lib/http/schemas.ts and every functions/<area>/schemas.ts, found on disk so a new area needs no registration. */
export function schemasModules(root: string): SchemasModule[] {
  const areas = readdirSync(join(root, 'functions'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'functions', entry.name, 'schemas.ts')))
    .map((entry) => entry.name)
    .sort();
  return [
    { source: 'lib/http/schemas.ts', target: 'generated/checks/http.ts' },
    ...areas.map((area) => ({ source: `functions/${area}/schemas.ts`, target: `generated/checks/${area}.ts` })),
  ];
}

const isObjectSchema = (value: unknown): value is TSchema =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[Kind] === 'Object';

/** The exported object schemas of a schemas module, by export name. */
export async function objectSchemasOf(root: string, source: string): Promise<[string, TSchema][]> {
  const module = (await import(pathToFileURL(join(root, source)).href)) as Record<string, unknown>;
  return Object.entries(module).filter((entry): entry is [string, TSchema] => isObjectSchema(entry[1]));
}

/** Schema path (as ajv reports it, without the failing keyword) → description, for error hints. */
function hintsOf(schema: Record<string, unknown>, path = '#', out: Record<string, string> = {}): Record<string, string> {
  if (typeof schema.description === 'string') out[path] = schema.description;
  for (const [key, value] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {}))
    hintsOf(value, `${path}/properties/${key}`, out);
  if (schema.items && typeof schema.items === 'object') hintsOf(schema.items as Record<string, unknown>, `${path}/items`, out);
  for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) branches.forEach((branch: Record<string, unknown>, i) => hintsOf(branch, `${path}/${keyword}/${i}`, out));
  }
  // The branches of an if/then/else chain (Tagged in lib/http/schemas.ts).
  for (const keyword of ['then', 'else'] as const) {
    const branch = schema[keyword];
    if (branch && typeof branch === 'object') hintsOf(branch as Record<string, unknown>, `${path}/${keyword}`, out);
  }
  return out;
}

/** Top-level property → its JSON type when it is not a string (query and path values are converted). */
function typesOf(schema: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((schema.properties as Record<string, { type?: string }>) ?? {})) {
    if (value.type === 'integer' || value.type === 'number' || value.type === 'boolean') out[key] = value.type;
  }
  return out;
}

/** The text of one generated checks file. */
export async function renderChecks(root: string, { source, target }: SchemasModule): Promise<string> {
  const schemas = await objectSchemasOf(root, source);
  // unicode: false keeps string lengths in UTF-16 code units, as TypeBox and JavaScript count them,
  // and needs no runtime helper; allErrors: false stops at the first error, which is all a 400 names;
  // messages: false leaves the wording to lib/http/validation.ts (one table instead of a string per
  // check in every bundle); useDefaults fills in absent properties that have a default, so the
  // schema is the one place a request default is declared. discriminator: a union of objects told
  // apart by one property (Discriminated in lib/http/schemas.ts) is checked against the one branch the
  // value names, so its errors are that branch's. strictRequired is off because a schema-level
  // `anyOf: [{ required: [a] }, { required: [b] }]` names properties its parent defines.
  const ajv = new Ajv({
    code: { source: true, esm: true, lines: true },
    unicode: false,
    allErrors: false,
    messages: false,
    useDefaults: true,
    discriminator: true,
    strict: true,
    strictRequired: false,
    logger: false,
  });
  for (const [name, schema] of schemas) ajv.addSchema(schema, name);
  const code = standaloneCode(ajv, Object.fromEntries(schemas.map(([name]) => [`${name}$validate`, name]))).replace(/^"use strict";\s*/, '');
  const checks = schemas.map(
    ([name, schema]) =>
      `export const ${name}: Check<typeof S.${name}> = {\n  validate: ${name}$validate,\n  types: ${JSON.stringify(typesOf(schema as unknown as Record<string, unknown>))},\n  hints: ${JSON.stringify(hintsOf(schema as unknown as Record<string, unknown>))},\n};`,
  );
  // generated/checks/<name>.ts sits two levels below the root.
  const up = target
    .split('/')
    .slice(1)
    .map(() => '..')
    .join('/');
  return [
    `// Generated by \`npm run generate\` (scripts/generate/checks.ts) from ${source}: do not edit.`,
    '// Precompiled request validators (ajv standalone code), so no schema compiler runs at cold start.',
    '// @ts-nocheck',
    '/* eslint-disable */',
    `import type { Check } from '${up}/lib/http/validation';`,
    `import type * as S from '${up}/${source.replace(/\.ts$/, '')}';`,
    '',
    code.trim(),
    '',
    ...checks,
    '',
  ].join('\n');
}
