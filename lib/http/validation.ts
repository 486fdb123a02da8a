import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { BadRequest } from './errors';

export type Location = 'body' | 'query' | 'path';

export interface Validator<T extends TSchema> {
  schema: T;
  /** Returns the value as the schema's type or throws a 400 that names the offending field. */
  parse(value: unknown): Static<T>;
}

/**
 * Compiles a schema once, at cold start. Query and path values arrive as strings, so they are
 * converted to the schema's types (a `max` of "20" becomes 20) before the check; bodies are JSON and
 * are checked as they are.
 */
export function compile<T extends TSchema>(schema: T, location: Location): Validator<T> {
  const check: TypeCheck<T> = TypeCompiler.Compile(schema);
  return {
    schema,
    parse(value) {
      const candidate = location === 'body' ? value : convertStrings(schema, value);
      if (check.Check(candidate)) return candidate as Static<T>;
      const first = check.Errors(candidate).First();
      throw new BadRequest(describe(first, location), `Invalid ${location === 'path' ? 'path parameter' : location === 'query' ? 'query parameter' : 'request body'}`);
    },
  };
}

function describe(error: ReturnType<TypeCheck<TSchema>['Errors']>['First'] extends () => infer E ? E : never, location: Location): string {
  if (!error) return `Invalid ${location}`;
  const field = error.path.replace(/^\//, '').replaceAll('/', '.');
  if (!field) {
    return location === 'body' ? 'Request body must be a JSON object' : `Invalid ${location}`;
  }
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `Missing required field '${field}'`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `Unknown field '${field}'`;
    default: {
      const hint = typeof error.schema.description === 'string' ? ` (${error.schema.description})` : '';
      return `Invalid field '${field}': ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}${hint}`;
    }
  }
}

const INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;
// The spec's own example is debug=1, so 1 and 0 are booleans too.
const BOOLEAN = new Set(['true', 'false', '1', '0']);

/**
 * Converts query and path strings to the types their properties declare, strictly: only a string
 * that is exactly an integer becomes an integer ("2.5" and "true" stay strings and fail the check
 * with a 400), only "true", "false", "1" and "0" become booleans. Anything else is left for the check to refuse.
 */
function convertStrings(schema: TSchema, value: unknown): unknown {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties;
  if (!properties || value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, raw] of Object.entries(out)) {
    const type = (properties[key] as { type?: string } | undefined)?.type;
    if (typeof raw !== 'string') continue;
    if (type === 'integer' && INTEGER.test(raw)) out[key] = Number(raw);
    else if (type === 'number' && NUMBER.test(raw)) out[key] = Number(raw);
    else if (type === 'boolean' && BOOLEAN.has(raw)) out[key] = raw === 'true' || raw === '1';
  }
  return out;
}
