/**
 * `npx tsx scripts/openapi-compare.ts <before.yaml> [after.yaml]`: where two OpenAPI documents differ in
 * meaning (after.yaml defaults to docs/openapi.yaml). Both are read with every $ref inlined, path-level
 * parameters moved into their operations and parameters keyed by place and name, so a difference is
 * one of content, not of layout. Used to check the importer's round trip: the hand-written document
 * against the generated one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { ROOT } from './generate/openapi';

type Json = any;

function inline(node: Json, doc: Json, depth = 0): Json {
  if (Array.isArray(node)) return node.map((n) => inline(n, doc, depth));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/') && depth < 30) {
    const target = node.$ref
      .slice(2)
      .split('/')
      .reduce((n: Json, key: string) => n?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    const { $ref: _ref, ...siblings } = node;
    return { ...inline(target, doc, depth + 1), ...inline(siblings, doc, depth) };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, doc, depth)]));
}

/** The document's meaning, laid out one way. */
export function normalised(doc: Json): Json {
  const paths: Json = {};
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (method === 'parameters') continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => inline(p, doc));
      const { parameters: _p, ...rest } = op;
      paths[`${method.toUpperCase()} ${template}`] = {
        ...inline(rest, doc),
        security: op.security ?? doc.security,
        ...(params.length ? { parameters: Object.fromEntries(params.map((p: Json) => [`${p.in}:${p.name}`, p])) } : {}),
      };
    }
  }
  const { paths: _paths, components, ...head } = doc;
  return {
    head: inline(head, doc),
    operations: paths,
    components: Object.fromEntries(Object.entries<Json>(components).map(([k, v]) => [k, Object.keys(v).sort()])),
  };
}

/** Every JSON pointer at which two values differ. */
export function differences(a: Json, b: Json, pointer = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    const found = keys.flatMap((k) => differences(a[k], b[k], `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
    // Same keys in another order is no difference.
    return found;
  }
  return [`${pointer}: ${JSON.stringify(a)?.slice(0, 160)} → ${JSON.stringify(b)?.slice(0, 160)}`];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const read = (file: string) => parse(readFileSync(file, 'utf8'), { schema: 'core', merge: false, uniqueKeys: true });
  const before = read(process.argv[2] as string);
  const after = read(process.argv[3] ?? join(ROOT, 'docs', 'openapi.yaml'));
  const found = differences(normalised(before), normalised(after));
  console.log(found.length ? found.join('\n') : 'The two documents say the same.');
  process.exitCode = found.length ? 1 : 0;
}
