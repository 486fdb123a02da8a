/**
 * The API contract as JSON: docs/openapi.yaml (the hand-written source of truth) becomes
 * generated/openapi.json, which the GET /api/openapi.json function imports, so no YAML parser is
 * bundled and the document served is the one the tests read.
 */
import { parse } from 'yaml';

export const OPENAPI_SOURCE = 'docs/openapi.yaml';
export const OPENAPI_TARGET = 'generated/openapi.json';

/** The JSON text of the document: two-space indentation and a final newline. */
export function renderOpenApi(yamlText: string): string {
  // Plain JSON values only: dates, anchors and merge keys are not part of the document's language.
  const document = parse(yamlText, { schema: 'core', merge: false, uniqueKeys: true });
  return `${JSON.stringify(document, null, 2)}\n`;
}
