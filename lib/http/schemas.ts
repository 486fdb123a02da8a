import { Type } from '@sinclair/typebox';

/** Shared schema pieces. Ids are UUIDs, so key-like or path-like values are refused at the door. */
export const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'a UUID',
});

export const Cursor = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[A-Za-z0-9_-]+$', description: 'the nextCursor of the previous page' });

export const Limit = (fallback = 20, max = 100) =>
  Type.Integer({ minimum: 1, maximum: max, default: fallback, description: `1 to ${max}` });

export const Pagination = {
  limit: Type.Optional(Limit()),
  cursor: Type.Optional(Cursor),
};

export const Region = Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]$', maxLength: 32, description: 'an AWS region such as us-east-1' });

/** What endpoints without a body, query or path schema accept: nothing (an empty object). */
export const EmptyObject = Type.Object({}, { additionalProperties: false });
