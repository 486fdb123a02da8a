import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
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
      const candidate = location === 'body' ? value : Value.Convert(schema, value);
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
