import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Shared schema pieces. Ids are UUIDs, so key-like or path-like values are refused at the door. */
export const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'a UUID',
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
  maximum: 10_080,
  description: 'stop the endpoint after this many minutes without invocations: 1 to 10080 (a week)',
});
// DynamoDB holds numbers up to 38 digits; a billion dollars a month is far beyond any real budget.
export const MonthlyBudgetUsd = Type.Number({
  exclusiveMinimum: 0,
  maximum: 1_000_000_000,
  description: "stop the endpoint when the month's cost reaches this many USD: more than 0, at most 1e9",
});

/** What endpoints without a body, query or path schema accept: nothing (an empty object). */
export const EmptyObject = Type.Object({}, { additionalProperties: false });
