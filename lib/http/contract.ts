/**
 * The pieces the API contract is written in. docs/openapi.yaml is generated (scripts/generate/openapi.ts)
 * from the request schemas (functions/<area>/schemas.ts), the response schemas (functions/<area>/response-schemas.ts),
 * the operations' words (functions/<area>/operations.ts), the routes of serverless.yml and each
 * handler's declared auth level. Nothing here runs in a Lambda: these are plain values the generator
 * reads, and types the lib layer may derive from the schemas with Static<>.
 */
import { Type, type SchemaOptions, type Static, type TSchema, type TUnion } from '@sinclair/typebox';

const SCHEMAS = '#/components/schemas/';

/** A named schema: it becomes components.schemas[name], and every Ref to it a $ref. */
export const Named = <T extends TSchema>(name: string, schema: T): T & { $id: string } => ({ ...schema, $id: name });

/** A $ref to a named schema, typed as that schema (OpenAPI 3.1 lets a $ref carry a description beside it). */
export const Ref = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => {
  if (!schema.$id) throw new Error('Ref: the schema has no name (Named)');
  return Type.Unsafe<Static<T>>({ $ref: `${SCHEMAS}${schema.$id}`, ...options });
};

/** OpenAI's x-ratelimit-* headers (components.headers, functions/system/document.ts), on every /v1 answer of a caller with a rate limit. */
export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit-requests': { $ref: '#/components/headers/RateLimitLimitRequests' },
  'x-ratelimit-remaining-requests': { $ref: '#/components/headers/RateLimitRemainingRequests' },
  'x-ratelimit-reset-requests': { $ref: '#/components/headers/RateLimitResetRequests' },
  'x-ratelimit-limit-tokens': { $ref: '#/components/headers/RateLimitLimitTokens' },
  'x-ratelimit-remaining-tokens': { $ref: '#/components/headers/RateLimitRemainingTokens' },
  'x-ratelimit-reset-tokens': { $ref: '#/components/headers/RateLimitResetTokens' },
};

/** JSON Schema's oneOf (exactly one branch holds), typed as the union of its branches. */
export const OneOf = <T extends TSchema[]>(schemas: [...T], options: SchemaOptions = {}) =>
  Type.Unsafe<Static<TUnion<T>>>({ ...options, oneOf: schemas });

/** Words and examples laid over a request schema's nodes, by JSON pointer ('' is the schema itself). */
type Annotations = Record<string, Record<string, unknown>>;

/**
 * A request body shown by its handler's own TypeBox schema (functions/<area>/schemas.ts): the validation
 * keywords come from the schema, the words from `annotations`, and it appears as components.schemas[name].
 */
export class RequestSchema {
  constructor(
    readonly schema: TSchema,
    readonly name: string,
    readonly annotations: Annotations = {},
  ) {}
}

/**
 * Parameter words, in the order shown: `{ name, in, description, ..., schema?: words }` or a `$ref` to a
 * shared parameter. `schema` holds words laid over the check's schema; if it names a `type`, it is the
 * schema shown instead (a number checked as text, so that "2.5" is refused rather than converted).
 */
type ParameterDoc = Record<string, unknown> & ({ name: string; in: 'query' | 'path' | 'header' } | { $ref: string });

/**
 * An operation's parameters: one per property of the handler's query and path schemas, in the order of
 * `docs` (a parameter without words is shown with its schema's description).
 */
export class Parameters {
  constructor(
    readonly schemas: { query?: TSchema; path?: TSchema },
    readonly docs: ParameterDoc[] = [],
  ) {}
}

/**
 * One operation's words: what OpenAPI says of it beside its route (serverless.yml) and roles (the
 * handler's auth level), which are not repeated here. `security` and `x-roles` are written only where
 * they differ from what the handler declares.
 */
export interface OperationDoc {
  tags: string[];
  summary: string;
  description?: string;
  parameters?: Parameters;
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
  'x-roles'?: string[];
  [extension: `x-${string}`]: unknown;
}

export type Operations = Record<string, OperationDoc>;

/**
 * The error bodies of each dialect (components.responses, spec section 7): the general shape on /api,
 * login's and validate's `message` shape, the chat thread's shape, OpenAI's and Anthropic's on /v1,
 * Bedrock's on /bedrock.
 */
export type ErrorDialect = 'api' | 'message' | 'thread' | 'openai' | 'anthropic' | 'bedrock';

const GENERAL: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'BudgetExceeded',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

/** The shared response a dialect answers `status` with. */
export function errorResponseName(dialect: ErrorDialect, status: number): string | undefined {
  const general = GENERAL[status];
  switch (dialect) {
    case 'api':
      return general;
    case 'thread':
      return general && `Thread${general}`;
    case 'message':
      return status === 429 ? 'MessageTooManyRequests' : general && `Message${general}`;
    case 'openai':
      return status === 401 ? 'OpenAiUnauthorized' : status === 429 ? 'OpenAiTooManyRequests' : general && 'OpenAiError';
    case 'anthropic':
      return status === 429 ? 'AnthropicTooManyRequests' : general && 'AnthropicError';
    case 'bedrock':
      return general && 'BedrockError';
  }
}

/** An operation's error answers: `...errors('api', 400, 401, 403)` in its responses. */
export function errors(dialect: ErrorDialect, ...statuses: number[]): Record<string, { $ref: string }> {
  return Object.fromEntries(
    statuses.map((status) => {
      const name = errorResponseName(dialect, status);
      if (!name) throw new Error(`the ${dialect} dialect has no error answer for ${status}`);
      return [String(status), { $ref: `#/components/responses/${name}` }];
    }),
  );
}
