import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { BadRequest } from '../errors';

export type Location = 'body' | 'query' | 'path';

/** One error as the precompiled validators report it (ajv's ErrorObject: the fields used here). */
interface CheckError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * A request schema precompiled by `npm run generate` (scripts/generate/checks.ts) into
 * generated/checks/<area>.ts: ajv's standalone validation code, so no schema compiler is bundled or
 * run at cold start. The TypeBox schema it came from gives the static type. A passing check has also
 * filled in the schema's defaults (WithDefault in lib/http/schemas.ts).
 */
export interface Check<T extends TSchema> {
  validate: ((data: unknown) => boolean) & { errors?: CheckError[] | null };
  /** Top-level properties that are not strings: query and path values are converted to these. */
  types: Readonly<Record<string, string>>;
  /** Schema path (as in CheckError, without the keyword) → the property's description. */
  hints: Readonly<Record<string, string>>;
  /** Type only. */
  readonly schema?: T;
}

/** The properties of an object schema that carry a default (WithDefault in lib/http/schemas.ts). */
type DefaultedKeys<T extends TSchema> =
  T extends TObject<infer P> ? { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P] : never;

/** A value as a passing check leaves it: the schema's type, with every defaulted property present. */
export type Checked<T extends TSchema> = Static<T> & Required<Pick<Static<T>, DefaultedKeys<T> & keyof Static<T>>>;

export interface Validator<T extends TSchema> {
  /** Returns the value as the schema's type, defaults filled in, or throws a 400 that names the offending field. */
  parse(value: unknown): Checked<T>;
}

const DETAILS: Record<Location, string> = { body: 'Invalid request body', query: 'Invalid query parameter', path: 'Invalid path parameter' };

/**
 * Query and path values arrive as strings, so they are converted to the schema's types (a `limit` of
 * "20" becomes 20) before the check, which then fills in defaults of the right type; bodies are JSON
 * and are checked as they are.
 */
export function validator<T extends TSchema>(check: Check<T>, location: Location): Validator<T> {
  return {
    parse(value) {
      const candidate = location === 'body' ? value : convertStrings(check.types, value);
      if (check.validate(candidate)) return candidate as Checked<T>;
      throw refusal(check, location, candidate);
    },
  };
}

/**
 * A field the schema declares as accepting nothing (Type.Never: a feature of the protocol the service
 * does not offer yet) is refused as unsupported, with OpenAI's code for it (`unsupported_parameter`,
 * `param` naming it), so a client can tell it from a misspelt field, which is an unknown one.
 */
function refusal(check: Check<TSchema>, location: Location, value: unknown): BadRequest {
  const last = check.validate.errors?.at(-1);
  if (last?.keyword === 'not') {
    const field = fieldOf(last.instancePath);
    const why = hintOf(check, last.schemaPath) ?? 'not supported';
    return new BadRequest(`Unsupported parameter: '${field}' is ${why}`, { code: 'unsupported_parameter', param: field });
  }
  return new BadRequest(describe(check, location, value), DETAILS[location]);
}

const fieldOf = (instancePath: string, property?: unknown) =>
  [
    ...instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~')),
    ...(typeof property === 'string' ? [property] : []),
  ].join('.');

/** The description of the schema a failing keyword belongs to (its schema path without the keyword). */
const hintOf = (check: Check<TSchema>, schemaPath: string): string | undefined => check.hints[schemaPath.slice(0, schemaPath.lastIndexOf('/'))];

function describe(check: Check<TSchema>, location: Location, value: unknown, reported = check.validate.errors ?? []): string {
  // With allErrors off the validator stops at the first failure; a failed anyOf (a union of
  // literals, an amount that is 0 or in a range, a choice of required fields) reports its branches
  // first and itself last, so the last error is the one to word, with its branches to say why. A
  // failed branch of an if/then chain (Tagged in lib/http/schemas.ts) reports its errors and then
  // the `if`, which says nothing more.
  const errors = reported.filter((e) => e.keyword !== 'if');
  const error = errors.at(-1);
  if (!error) return `Invalid ${location}`;
  const branches = errors.filter((e) => e !== error && e.instancePath === error.instancePath && e.schemaPath.startsWith(`${error.schemaPath}/`));
  if (error.keyword === 'anyOf') {
    const meant = meantBranch(error, errors, valueAt(value, error.instancePath));
    if (meant) return describe(check, location, value, meant);
  }
  switch (error.keyword) {
    case 'required':
      return `Missing required field '${fieldOf(error.instancePath, error.params.missingProperty)}'`;
    case 'additionalProperties': {
      // Inside one branch of a discriminated or tagged union, say what that branch takes.
      const hint = /\/(oneOf\/\d+|then|else|allOf\/\d+)\/additionalProperties$/.test(error.schemaPath) ? hintOf(check, error.schemaPath) : undefined;
      return `Unknown field '${fieldOf(error.instancePath, error.params.additionalProperty)}'${hint ? ` (${hint})` : ''}`;
    }
    case 'discriminator': {
      // A union of objects told apart by one property (Discriminated in lib/http/schemas.ts).
      const tag = String(error.params.tag);
      const field = fieldOf(error.instancePath, tag);
      const present = valueAt(value, error.instancePath) as Record<string, unknown> | undefined;
      if (error.params.error === 'tag' && present?.[tag] === undefined) return `Missing required field '${field}'`;
      const hint = hintOf(check, error.schemaPath);
      return `Invalid field '${field}': must be one of the allowed values${hint ? ` (${hint})` : ''}`;
    }
    case 'anyOf':
      if (branches.length > 0 && branches.every((e) => e.keyword === 'required')) {
        return `Missing required field ${branches.map((e) => `'${fieldOf(e.instancePath, e.params.missingProperty)}'`).join(' or ')}`;
      }
  }
  const field = fieldOf(error.instancePath);
  if (!field) return location === 'body' ? 'Request body must be a JSON object' : `Invalid ${location}`;
  const hint = hintOf(check, error.schemaPath);
  // A union that is not only literals (an amount: 0, or a range) is worded by its description alone.
  if (error.keyword === 'anyOf' && hint && !branches.every((e) => e.keyword === 'const')) return `Invalid field '${field}': must be ${hint}`;
  const message = wording(error);
  return `Invalid field '${field}': ${message}${hint ? ` (${hint})` : ''}`;
}

/**
 * The one branch of a failed union that the value was meant for, when the others failed only because
 * the value is not of their kind (another JSON type, or a literal where the value is an object or an
 * array): its errors, so that the refusal names the field inside it ("Missing required field
 * 'messages.1.content.0.image_url.url'") instead of "must be one of the allowed values".
 */
function meantBranch(union: CheckError, errors: CheckError[], value: unknown): CheckError[] | undefined {
  const prefix = `${union.schemaPath}/`;
  const byBranch = new Map<string, CheckError[]>();
  for (const e of errors) {
    if (e === union || !e.schemaPath.startsWith(prefix)) continue;
    const branch = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
  }
  const compound = value !== null && typeof value === 'object';
  const misfit = (e: CheckError) =>
    e.instancePath === union.instancePath && (e.keyword === 'type' || (compound && (e.keyword === 'const' || e.keyword === 'enum')));
  const meant = [...byBranch.values()].filter((branchErrors) => !branchErrors.some(misfit));
  return meant.length === 1 && meant.length < byBranch.size ? meant[0] : undefined;
}

/** The part of a value an instancePath (JSON pointer) points to. */
function valueAt(value: unknown, instancePath: string): unknown {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), value);
}

/** ajv's own wording, from the error's keyword and params (the generated code carries no messages). */
function wording({ keyword, params }: CheckError): string {
  switch (keyword) {
    case 'type':
      return `must be ${String(params.type)}`;
    case 'maxLength':
      return `must NOT have more than ${String(params.limit)} characters`;
    case 'minLength':
      return `must NOT have fewer than ${String(params.limit)} characters`;
    case 'maxItems':
      return `must NOT have more than ${String(params.limit)} items`;
    case 'minItems':
      return `must NOT have fewer than ${String(params.limit)} items`;
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'pattern':
      return `must match pattern "${String(params.pattern)}"`;
    case 'const':
      return `must be equal to ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
    case 'anyOf':
      return 'must be one of the allowed values';
    default:
      return 'is invalid';
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
function convertStrings(types: Readonly<Record<string, string>>, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, raw] of Object.entries(out)) {
    const type = Object.hasOwn(types, key) ? types[key] : undefined;
    if (typeof raw !== 'string' || !type) continue;
    if (type === 'integer' && INTEGER.test(raw)) out[key] = Number(raw);
    else if (type === 'number' && NUMBER.test(raw)) out[key] = Number(raw);
    else if (type === 'boolean' && BOOLEAN.has(raw)) out[key] = raw === 'true' || raw === '1';
  }
  return out;
}
