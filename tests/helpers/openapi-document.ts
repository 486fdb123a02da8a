import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GENERATED = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'generated', 'openapi.json');

/**
 * The API contract, docs/openapi.yaml, as the tests read it: from its JSON twin generated/openapi.json,
 * which `npm run generate` writes beside it (`npm test` runs it first) and the API serves as
 * GET /api/openapi.json. tests/unit/generate.test.ts holds the two equal. Parsing the 700 KB YAML takes
 * 0.5 to 1 CPU-s in each test file that reads it; the JSON, 20 ms.
 */
export function openapiDocument<T = any>(): T {
  return JSON.parse(readFileSync(GENERATED, 'utf8')) as T;
}
