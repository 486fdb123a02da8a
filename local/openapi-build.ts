/**
 * Generates lib/openapi/document.json from docs/openapi.yaml, the hand-written source of truth.
 *
 *   npm run openapi            writes the JSON
 *   npm run openapi -- --check exits 1 when the JSON is out of date (tests/unit/openapi.test.ts checks the same)
 *
 * The JSON is committed so that the GET /api/openapi.json Lambda imports it without a YAML parser.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCE = join(root, 'docs', 'openapi.yaml');
export const TARGET = join(root, 'lib', 'openapi', 'document.json');

/** The JSON text of the document: two-space indentation and a final newline, so diffs stay readable. */
export function render(yamlText: string): string {
  // Plain JSON values only: dates, anchors and merge keys are not part of the document's language.
  const document = parse(yamlText, { schema: 'core', merge: false, uniqueKeys: true });
  return `${JSON.stringify(document, null, 2)}\n`;
}

function main() {
  const json = render(readFileSync(SOURCE, 'utf8'));
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(TARGET, 'utf8');
    } catch {
      // missing counts as out of date
    }
    if (current !== json) {
      console.error(`${relative(root, TARGET)} is out of date: run npm run openapi`);
      process.exit(1);
    }
    console.log(`${relative(root, TARGET)} is up to date`);
    return;
  }
  writeFileSync(TARGET, json);
  console.log(`wrote ${relative(root, TARGET)} from ${relative(root, SOURCE)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
