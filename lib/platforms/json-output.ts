/**
 * JSON output, platform-neutral: the tool a platform without a native JSON mode is made to call
 * (managed/chat.ts), and the check the metered call runs on every JSON answer, native or not: the
 * content must parse and, with a schema, validate.
 *
 * The validator is @cfworker/json-schema (drafts 4 to 2020-12, about 23 KB minified, no code
 * generation): ajv, which the build uses for the request checks, is about 125 KB in a bundle and
 * compiles each schema to a function, the wrong trade for schemas that arrive with each request.
 */
import { Validator } from '@cfworker/json-schema';
import type { OutputFormat, ToolSpec } from './types';

/** The name of the JSON output tool, unless the caller's own tools already use it. */
const JSON_TOOL = 'json_output';

/** The tool whose input is the answer: the schema's, or any object for json_object. */
export function jsonOutputTool(format: OutputFormat, taken: ToolSpec[] = []): ToolSpec {
  const names = new Set(taken.map((t) => t.name));
  let name = JSON_TOOL;
  for (let i = 2; names.has(name); i++) name = `${JSON_TOOL}_${i}`;
  const schema = format.type === 'json_schema' ? format.schema : { type: 'object' };
  const description =
    format.type === 'json_schema'
      ? `Answer with this tool: its input is your answer, a JSON document (${format.name}) of its input schema.`
      : 'Answer with this tool: its input is your answer, as a JSON object.';
  return { name, description, parameters: schema };
}

export type JsonOutputCheck = { valid: true; value: unknown } | { valid: false; problem: string };

/**
 * A caller's schema may hold no regular expression: `pattern`, `patternProperties` or `format:
 * "regex"`, wherever it sits. The validator runs them with `new RegExp`, V8's backtracking engine, on
 * the model's answer, which the caller steers: `^(a+)+$` against 24 `a`s and a `b` takes about 76 ms,
 * 2.7 times longer with every 2 more characters, so one call could hold its function until the
 * timeout, and enough of them the account's Lambda concurrency. Refused rather than run by a
 * linear-time engine: RE2 is a native addon (no place in a bundle built once for every Lambda
 * architecture) or a pure-JS port several times the validator's size, and it speaks another dialect
 * than JSON Schema's ECMAScript patterns (no lookaround, no back-references), so some patterns would
 * still be refused, less plainly. The schema still reaches the model, which is asked to follow it.
 *
 * Walks only where a schema sits (a property named `pattern` is not the keyword); returns the dotted
 * path of the first one found, e.g. `properties.code.pattern`.
 */
export function regexInSchema(schema: unknown, path = ''): string | undefined {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  const node = schema as Record<string, unknown>;
  if (node.pattern !== undefined) return at('pattern');
  if (node.patternProperties !== undefined) return at('patternProperties');
  if (node.format === 'regex') return at('format');
  for (const [keyword, value] of Object.entries(node)) {
    let found: string | undefined;
    if (ONE_SCHEMA.has(keyword)) found = Array.isArray(value) ? inEach(value, at(keyword)) : regexInSchema(value, at(keyword));
    else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) found = inEach(value, at(keyword));
    else if (SCHEMA_MAPS.has(keyword) && value && typeof value === 'object') {
      found = inEach(Object.values(value), at(keyword), Object.keys(value));
    }
    if (found) return found;
  }
  return undefined;
}

/** The keywords (drafts 4 to 2020-12) whose value is a schema (`items` also a list of them, before 2020-12). */
const ONE_SCHEMA = new Set([
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas (`dependencies` also to lists of names, which hold none). */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

const inEach = (schemas: unknown[], path: string, names?: string[]) =>
  schemas.reduce<string | undefined>((found, schema, i) => found ?? regexInSchema(schema, `${path}.${names?.[i] ?? i}`), undefined);

/** Compiled validators of recent schemas (a client sends the same schema call after call). */
const validators = new Map<string, Validator>();
const MAX_VALIDATORS = 50;

function validatorOf(schema: Record<string, unknown>): Validator {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    validator = new Validator(schema, '2020-12', false);
    if (validators.size >= MAX_VALIDATORS) validators.delete(validators.keys().next().value!);
    validators.set(key, validator);
  }
  return validator;
}

/**
 * Whether a JSON answer is what was asked: a JSON document (json_object: an object), and with
 * json_schema one valid against the schema. `problem` says what is wrong in a sentence (the first
 * few violations, with where they are).
 */
export function checkJsonOutput(content: string, format: OutputFormat): JsonOutputCheck {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { valid: false, problem: 'The answer is not valid JSON' };
  }
  if (format.type === 'json_object') {
    return value && typeof value === 'object' && !Array.isArray(value)
      ? { valid: true, value }
      : { valid: false, problem: 'The answer is not a JSON object' };
  }
  // The gateway refuses such a schema before the call (lib/calls/metered.ts); no caller's pattern is ever compiled.
  const regex = regexInSchema(format.schema);
  if (regex) return { valid: false, problem: `The schema "${format.name}" could not be used: it holds a regular expression (${regex})` };
  let result;
  try {
    result = validatorOf(format.schema).validate(value);
  } catch (err) {
    return { valid: false, problem: `The schema "${format.name}" could not be used: ${(err as Error).message}` };
  }
  if (result.valid) return { valid: true, value };
  // The validator reports the enclosing failures too ("a property did not match"); the leaves say what.
  const leaves = result.errors.filter((e) => !/^(properties|items|allOf|anyOf|oneOf|\$ref|prefixItems)$/.test(e.keyword));
  const shown = (leaves.length > 0 ? leaves : result.errors).slice(0, 3).map((e) => `${e.instanceLocation || '#'}: ${e.error}`);
  return { valid: false, problem: `The answer does not match the schema "${format.name}": ${shown.join('; ')}` };
}
