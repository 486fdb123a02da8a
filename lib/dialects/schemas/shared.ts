// ---------------------------------------------------------------------------------------------
// The wire dialects' requests, as TypeBox schemas: the one description of each body. The request
// checks (functions/<area>/schemas.ts re-exports the bodies; generated/checks/) and the contract
// (docs/openapi.yaml) are made from them, and the dialects (lib/dialects/) read the bodies as their
// `Static` types, so schema and translation cannot drift apart. Each body is closed (an unknown field
// is a typo and is refused by name), except where real clients send fields of their own; the fields
// of features not offered are declared as accepting nothing, so that they are refused as not
// supported rather than as unknown. This module: the pieces the dialects share.
// ---------------------------------------------------------------------------------------------
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_DOCUMENT_BYTES } from '../../platforms/documents';

/**
 * The largest image accepted, decoded: Converse's limit (3.75 MB), the strictest of the platforms, so
 * that a model never refuses an image the gateway let through. A whole request is also bounded by the
 * route's body limit.
 */
export const MAX_IMAGE_BYTES = 3_932_160;
/** A data: URL of the largest image: its base64 text (4 characters per 3 bytes) and the `data:…;base64,` prefix. */
export const MAX_IMAGE_URL_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 40;

/** A value or null; described as its schema is (or by its type), so that a refusal says what is allowed. */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Union([schema, Type.Null()], { description: `${schema.description ?? (schema.type as string)}, or null` });
export const closed = { additionalProperties: false } as const;
/** Fields that accept nothing, so that sending one is refused as not supported by `by`. */
export const notSupported = (fields: readonly string[], by = 'this gateway') => {
  const never = Type.Optional(Type.Never({ description: `not supported by ${by} yet` }));
  return Object.fromEntries(fields.map((field) => [field, never])) as Record<string, typeof never>;
};

export const StopWord = Type.String({ minLength: 1, maxLength: 200 });
export const ModelName = Type.String({ minLength: 1, maxLength: 300, description: "a model id from GET /v1/models (a resource's endpoint name)" });
/** One text of a conversation: as much as a model context holds, and far less than a body may carry. */
export const LongText = Type.String({ maxLength: 200_000 });
/** A function's name, as OpenAI, Anthropic and Converse all allow it. */
export const ToolName = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: '1 to 64 letters, digits, underscores and hyphens' });
export const CallId = Type.String({ minLength: 1, maxLength: 256 });
export const ToolArguments = Type.String({ maxLength: 200_000, description: 'the arguments as JSON text' });
export const ToolDescription = Type.String({ maxLength: 50_000 });
/** A JSON Schema (of a tool's arguments, of a structured answer), or a tool call's input: any JSON object. */
export const JsonObject = Type.Record(Type.String(), Type.Unknown());
export const ImageUrl = Type.String({
  minLength: 1,
  maxLength: MAX_IMAGE_URL_CHARS,
  description: 'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched',
});
export const Temperature = Type.Number({ minimum: 0, maximum: 2 });
export const TopP = Type.Number({ minimum: 0, maximum: 1 });
export const MaxTokens = Type.Integer({ minimum: 1, maximum: 32_000 });
export const SchemaName = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: '1 to 64 letters, digits, underscores and hyphens' });
/** A conversation: long enough for agents' tool loops (each call and each result is a message). */
export const MAX_MESSAGES = 1000;
/** A document's base64 text at most: MAX_DOCUMENT_BYTES (4.5 MB) encoded. */
export const DocumentData = Type.String({ maxLength: Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4, description: 'base64 of at most 4.5 MB' });

/**
 * A prompt-cache checkpoint after the block, part or tool that carries it (Anthropic's cache_control;
 * LiteLLM takes the same field on OpenAI's content parts and tools): `ephemeral`, for 5 minutes
 * unless `ttl` says 1h.
 */
const Checkpoint = Type.Object({ type: Type.Literal('ephemeral'), ttl: Type.Optional(Type.Union([Type.Literal('5m'), Type.Literal('1h')])) }, closed);
export type Checkpoint = Static<typeof Checkpoint>;
export const CacheControl = Type.Optional(Nullable(Checkpoint));

/** OpenAI's service_tier: auto (the caller's default), default (Standard), flex or priority. */
export const ServiceTierField = Type.Optional(
  Nullable(
    Type.Union([Type.Literal('auto'), Type.Literal('default'), Type.Literal('flex'), Type.Literal('priority')], {
      description: 'auto, default (Standard), flex or priority: the processing tier, where the model offers it',
    }),
  ),
);

/** OpenAI's reasoning efforts (chat's reasoning_effort, the Responses API's reasoning.effort). */
const Effort = Type.Union(
  [Type.Literal('none'), Type.Literal('minimal'), Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('xhigh')],
  { description: 'none, minimal, low, medium, high or xhigh: how much the model reasons, where it reasons' },
);
export type OpenAiEffort = Static<typeof Effort>;
/** OpenAI's reasoning effort, for a model that reasons (none: no reasoning). */
export const ReasoningEffort = Type.Optional(Nullable(Effort));

/** The two answer formats OpenAI's APIs share: plain text, and any JSON object. */
export const PlainText = Type.Object({ type: Type.Literal('text') }, closed);
export const AnyJson = Type.Object({ type: Type.Literal('json_object') }, closed);
