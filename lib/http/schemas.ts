import { Kind, Type, TypeRegistry, type Static, type TLiteral, type TObject, type TSchema, type TUnion } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { IDLE_TIMEOUT_MAX_MINUTES } from '../resources/guardrails';

/**
 * Shared schema pieces. Ids are the UUIDs the service issues (crypto.randomUUID: version 4, lower
 * case), so key-like or path-like values, and ids in another case that could never name an item, are
 * refused at the door with a 400 instead of a 404.
 */
export const Uuid = Type.String({
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  description: 'a UUID in lower case, as the service issues them',
});

export const Cursor = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[A-Za-z0-9_-]+$', description: 'the nextCursor of the previous page' });

/**
 * An optional property that the request check fills in with `value` when it is absent (ajv's
 * useDefaults, after query strings are converted), so the handler receives it present and declares no
 * fallback of its own. The value is the default docs/openapi.yaml states (tests/unit/openapi.test.ts).
 */
export const WithDefault = <T extends TSchema>(schema: T, value: Static<T>) => Type.Optional({ ...schema, default: value });

/** A page size, from 1 to `max`; `fallback` when the request names none. */
export const Limit = (fallback = 20, max = 100) => WithDefault(Type.Integer({ minimum: 1, maximum: max, description: `1 to ${max}` }), fallback);

export const Pagination = {
  limit: Limit(),
  cursor: Type.Optional(Cursor),
};

export const Region = Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]$', maxLength: 32, description: 'an AWS region such as us-east-1' });

/** A dedicated endpoint's guardrails (deploy and PATCH /api/resources/{resourceId}). */
export const IdleTimeoutMinutes = Type.Integer({
  minimum: 1,
  maximum: IDLE_TIMEOUT_MAX_MINUTES,
  description: `stop the endpoint after this many minutes without invocations: 1 to ${IDLE_TIMEOUT_MAX_MINUTES} (a week)`,
});
// DynamoDB holds numbers up to 38 digits; a billion dollars a month is far beyond any real budget.
// The smallest budget is the smallest amount the table holds exactly (MIN_USD, see Usd below).
export const MonthlyBudgetUsd = Type.Number({
  minimum: 1e-9,
  maximum: 1_000_000_000,
  description: "stop the endpoint when the month's cost reaches this many USD: from 0.000000001 to 1e9",
});

/**
 * The rate limits of keys and teams (issue 25), per minute. At least 1: a limit of 0 would refuse
 * every call, which revoking a key (or removing a budget) says more plainly.
 */
export const RpmLimit = Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'requests per minute, 1 to 1000000' });
export const TpmLimit = Type.Integer({
  minimum: 1,
  maximum: 1_000_000_000,
  description: 'tokens (prompt and completion) per minute, 1 to 1000000000',
});
const NullableLimit = <T extends typeof RpmLimit>(schema: T, what: string) =>
  Type.Union([schema, Type.Null()], { description: `${what}; null removes the limit` });
export const NullableRpmLimit = NullableLimit(RpmLimit, 'requests per minute, 1 to 1000000');
export const NullableTpmLimit = NullableLimit(TpmLimit, 'tokens per minute, 1 to 1000000000');

/** A list of Bedrock's processing tiers, as OpenAI's service_tier names them (a key's or a team's limit). */
export const ServiceTierList = (description: string) =>
  Type.Array(Type.Union([Type.Literal('default'), Type.Literal('flex'), Type.Literal('priority')]), { minItems: 1, maxItems: 3, description });

/**
 * What endpoints without a body, query or path schema accept: nothing (an empty object). Exported for
 * the check generator (scripts/generate/checks.ts), which makes generated/checks/http.ts of it.
 * @public
 */
export const EmptyObject = Type.Object({}, { additionalProperties: false });

/**
 * The smallest amount of money, other than 0, that a request may carry. JSON numbers are read as
 * doubles, which reach down to 5E-324; DynamoDB stores numbers of magnitude 1E-130 and up only, so a
 * smaller positive amount would fail at the table. The service rounds every cost it computes to a
 * millionth of a dollar, so a billionth is far below anything it can show and far above what the table
 * refuses.
 */
const MIN_USD = 1e-9;

/**
 * An amount in US dollars: exactly 0, or from MIN_USD to `max`. Every bound is one the service stores
 * and computes with exactly (tests/integration/number-bounds.test.ts): the largest maxima are far
 * below 2^53 and DynamoDB's 9.99E+125, and a double has at most 17 significant digits, inside
 * DynamoDB's 38. -0 is 0.
 */
export const Usd = (max: number, what = 'USD') =>
  Type.Union([Type.Literal(0), Type.Number({ minimum: MIN_USD, maximum: max })], {
    description: `0, or from 0.000000001 to ${max} (${what})`,
  });

/** Usd that a PATCH may also set to null (to remove the amount). */
export const NullableUsd = (max: number, what = 'USD') =>
  Type.Union([Type.Literal(0), Type.Number({ minimum: MIN_USD, maximum: max }), Type.Null()], {
    description: `0, or from 0.000000001 to ${max} (${what}); null removes it`,
  });

/**
 * A union of object schemas told apart by one property (`propertyName`), whose value in each branch is
 * a literal: JSON Schema's `oneOf` with OpenAPI's `discriminator`, so that a generated client knows
 * which shape to build and the request check reports the errors of the one branch the value names
 * (ajv's discriminator option) instead of "matches no branch". TypeBox has no oneOf, so the kind is
 * registered here for TypeBox's own checks (TypeBox's documented way of adding one).
 */
const DISCRIMINATED = 'DiscriminatedUnion';
if (!TypeRegistry.Has(DISCRIMINATED)) {
  TypeRegistry.Set<{ oneOf: TSchema[] }>(DISCRIMINATED, (schema, value) => schema.oneOf.filter((branch) => Value.Check(branch, value)).length === 1);
}

export function Discriminated<T extends TObject[]>(propertyName: string, branches: [...T], options: { description?: string } = {}) {
  for (const branch of branches) {
    const tag = branch.properties[propertyName] as TLiteral | undefined;
    if (tag?.const === undefined || !branch.required?.includes(propertyName))
      throw new Error(`Discriminated: every branch needs a required literal '${propertyName}'`);
  }
  return Type.Unsafe<Static<TUnion<T>>>({ [Kind]: DISCRIMINATED, type: 'object', ...options, oneOf: branches, discriminator: { propertyName } });
}

/**
 * A union of object schemas told apart by one property that one branch may leave out: the Responses
 * API's input items (`type` is `function_call`, `function_call_output`, …, or absent or `message` for a
 * message), Anthropic's tools (`type` absent or `custom`). JSON Schema's discriminator needs the
 * property present, so the union is an if/then/else chain instead: a value whose property names a
 * tagged branch is checked against that branch alone, one without it (or with the untagged branch's
 * value) against the untagged branch, and one with any other value is refused on that property, with
 * the union's description as the hint. Each refusal names the field at fault, as a discriminated
 * union's do.
 */
const TAGGED = 'TaggedUnion';
const TAGGED_PARTS = Symbol('tagged parts');

interface TaggedParts {
  property: string;
  tagged: TObject[];
  untagged: TObject;
}

if (!TypeRegistry.Has(TAGGED)) {
  TypeRegistry.Set<{ [TAGGED_PARTS]: TaggedParts }>(TAGGED, (schema, value) => {
    const { property, tagged, untagged } = schema[TAGGED_PARTS];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const tag = (value as Record<string, unknown>)[property];
    const branch = tag === undefined || tag === literalOf(untagged, property) ? untagged : tagged.find((b) => literalOf(b, property) === tag);
    return branch !== undefined && Value.Check(branch, value);
  });
}

const literalOf = (branch: TObject, property: string) => (branch.properties[property] as TLiteral | undefined)?.const;

export function Tagged<T extends TObject[], U extends TObject>(property: string, tagged: [...T], untagged: U, options: { description: string }) {
  const untaggedTag = literalOf(untagged, property);
  for (const branch of tagged) {
    if (literalOf(branch, property) === undefined || !branch.required?.includes(property))
      throw new Error(`Tagged: every tagged branch needs a required literal '${property}'`);
  }
  if (untaggedTag === undefined || untagged.required?.includes(property))
    throw new Error(`Tagged: the untagged branch needs an optional literal '${property}'`);
  const tags = [...tagged.map((b) => literalOf(b, property)), untaggedTag];
  const has = (value?: unknown) => ({
    type: 'object',
    required: [property],
    ...(value !== undefined && { properties: { [property]: { const: value } } }),
  });
  // The last link: a value that names no tagged branch is the untagged one, once its tag is one of the allowed values.
  let chain: Record<string, unknown> = {
    if: has(),
    then: { allOf: [{ type: 'object', properties: { [property]: { enum: tags, description: options.description } } }, untagged] },
    else: untagged,
  };
  for (const branch of [...tagged].reverse()) chain = { if: has(literalOf(branch, property)), then: branch, else: { type: 'object', ...chain } };
  return Type.Unsafe<Static<TUnion<[...T, U]>>>({
    [Kind]: TAGGED,
    [TAGGED_PARTS]: { property, tagged, untagged },
    type: 'object',
    description: options.description,
    ...chain,
  });
}

/**
 * A budget's alert thresholds (fractions of the budget, stored sorted); null restores the default
 * [0.8, 1] (lib/alerts/thresholds.ts). Five at most: each is an event a month, and more is noise.
 */
export const AlertThresholds = Type.Union([
  Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 1 }), {
    minItems: 1,
    maxItems: 5,
    uniqueItems: true,
    description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1',
  }),
  Type.Null(),
]);
