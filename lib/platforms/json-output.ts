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
