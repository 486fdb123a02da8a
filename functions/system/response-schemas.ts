// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of the contract that several areas share (and the shared error bodies). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';

/** The fractions of a budget at which it alerts, once each per month; null restores the default [0.8, 1]. */
export const AlertThresholds = Named(
  'AlertThresholds',
  Type.Union(
    [
      Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 1 }), {
        description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1',
        minItems: 1,
        maxItems: 5,
        uniqueItems: true,
      }),
      Type.Null(),
    ],
    { description: 'The fractions of a budget at which it alerts, once each per month; null restores the default [0.8, 1].' },
  ),
);

/** The fractions of a budget at which it alerts, as answers show them: its own, or the default. */
export const BudgetAlertThresholds = Named(
  'BudgetAlertThresholds',
  Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 1 }), {
    description:
      'The fractions of the budget at which it alerts (each once a month), sorted: those set with alert_thresholds, or the default [0.8, 1]. Alerts fire only while there is a budget.',
    minItems: 1,
    maxItems: 5,
  }),
);

/** ISO 8601 UTC timestamp. */
export const Timestamp = Named('Timestamp', Type.String({ description: 'ISO 8601 UTC timestamp.', format: 'date-time' }));

/** A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400). */
export const Uuid = Named(
  'Uuid',
  Type.String({
    description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
    format: 'uuid',
    pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  }),
);

/** 1 to 64 letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit; unique in any case. Sign-on groups name teams by it (`OIDC_TEAM_GROUPS_PREFIX` + name). */
export const TeamName = Named(
  'TeamName',
  Type.String({
    description:
      '1 to 64 letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit; unique in any case. Sign-on groups name teams by it (`OIDC_TEAM_GROUPS_PREFIX` + name).',
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9 ._-]*[A-Za-z0-9])?$',
  }),
);

/** Requests per minute, 1 to 1000000. */
export const RpmLimit = Named('RpmLimit', Type.Integer({ description: 'Requests per minute, 1 to 1000000.', minimum: 1, maximum: 1000000 }));

/** Tokens (prompt and completion) per minute, 1 to 1000000000. */
export const TpmLimit = Named(
  'TpmLimit',
  Type.Integer({ description: 'Tokens (prompt and completion) per minute, 1 to 1000000000.', minimum: 1, maximum: 1000000000 }),
);

/** USD per calendar month (UTC), 0 or from 0.000000001 to 1000000000. */
export const TeamBudgetUsd = Named(
  'TeamBudgetUsd',
  Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000000000 })], {
    description: 'USD per calendar month (UTC), 0 or from 0.000000001 to 1000000000.',
  }),
);

export const RouteTargetInput = Named(
  'RouteTargetInput',
  Type.Object(
    {
      resource_id: Ref(Uuid),
      weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The share of calls under `weighted` (default 1).' })),
    },
    { additionalProperties: false },
  ),
);

export const OpenAiErrorBody = Named(
  'OpenAiErrorBody',
  Type.Object({
    error: Type.Object({
      message: Type.String(),
      type: Type.Unsafe<'invalid_request_error' | 'authentication_error' | 'permission_error' | 'insufficient_quota' | 'api_error'>({
        type: 'string',
        enum: ['invalid_request_error', 'authentication_error', 'permission_error', 'insufficient_quota', 'api_error'],
      }),
      code: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      param: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
    }),
  }),
);

export const Platform = Named(
  'Platform',
  Type.Unsafe<'managed' | 'dedicated' | 'hosted'>({ type: 'string', enum: ['managed', 'dedicated', 'hosted'] }),
);

/** Anthropic's error body; `error.type` follows the status (invalid_request_error 400, authentication_error 401, not_found_error 404, rate_limit_error 429, api_error 5xx, overloaded_error 503). */
export const AnthropicErrorBody = Named(
  'AnthropicErrorBody',
  Type.Object(
    { type: Type.Unsafe<'error'>({ const: 'error' }), error: Type.Object({ type: Type.String(), message: Type.String() }) },
    {
      description:
        "Anthropic's error body; `error.type` follows the status (invalid_request_error 400, authentication_error 401, not_found_error 404, rate_limit_error 429, api_error 5xx, overloaded_error 503).",
    },
  ),
);

/** The general error body: success false, error, details optional. */
export const ErrorSchema = Named(
  'Error',
  Type.Object(
    { success: Type.Unsafe<false>({ const: false }), error: Type.String(), details: Type.Optional(Type.String()) },
    { description: 'The general error body: success false, error, details optional.', additionalProperties: false },
  ),
);

/** The login and validate error body; the text is in `message`. */
export const MessageError = Named(
  'MessageError',
  Type.Object(
    { success: Type.Unsafe<false>({ const: false }), message: Type.String(), details: Type.Optional(Type.String()) },
    { description: 'The login and validate error body; the text is in `message`.', additionalProperties: false },
  ),
);

/** User message: username, resource_id. Assistant message: model_id, model_response_time (seconds), tokens_used, username. Legacy messages may have an empty object. */
export const MessageMetadata = Named(
  'MessageMetadata',
  Type.Object(
    {
      username: Type.Optional(Type.String()),
      resource_id: Type.Optional(Ref(Uuid)),
      model_id: Type.Optional(Type.String()),
      model_response_time: Type.Optional(Type.Number({ minimum: 0 })),
      tokens_used: Type.Optional(Type.Integer({ minimum: 0 })),
      route_id: Type.Optional(Ref(Uuid)),
      route_name: Type.Optional(Type.String()),
    },
    {
      description:
        'User message: username, resource_id. Assistant message: model_id, model_response_time (seconds), tokens_used, username; a turn through a route adds resource_id (the target that answered), route_id and route_name. Legacy messages may have an empty object.',
      additionalProperties: false,
    },
  ),
);

/**
 * What the prompt cache did for an assistant reply (docs/bedrock.md "Prompt caching in the session
 * chat"): present only where it served or stored anything. The prompt was tokens_in plus these.
 */
export const PromptCacheFigures = {
  cache_read_tokens: Type.Optional(
    Type.Integer({ description: "Prompt tokens the model's prompt cache served, beside tokens_in (Bedrock's cacheReadInputTokens).", minimum: 0 }),
  ),
  cache_write_tokens: Type.Optional(
    Type.Integer({ description: "Prompt tokens written to the prompt cache, beside tokens_in (Bedrock's cacheWriteInputTokens).", minimum: 0 }),
  ),
  cache_cost_usd: Type.Optional(
    Type.Number({ description: "The cache reads' and writes' share of cost_usd (exact, up to 9 decimals).", minimum: 0 }),
  ),
};

/** A chat message (spec 2.4). Assistant messages carry the token and latency figures. */
export const ChatMessage = Named(
  'ChatMessage',
  Type.Object(
    {
      role: Type.Unsafe<'user' | 'assistant'>({ type: 'string', enum: ['user', 'assistant'] }),
      content: Type.String(),
      timestamp: Ref(Timestamp),
      metadata: Ref(MessageMetadata),
      tokens_in: Type.Optional(Type.Integer({ minimum: 0 })),
      tokens_out: Type.Optional(Type.Integer({ minimum: 0 })),
      tokens_total: Type.Optional(Type.Integer({ description: 'tokens_in plus tokens_out.', minimum: 0 })),
      latency_ms: Type.Optional(Type.Integer({ minimum: 0 })),
      model_id: Type.Optional(Type.String()),
      cost_usd: Type.Optional(
        Type.Number({
          description:
            "An assistant reply's charge as the service recorded it (exact, up to 9 decimals; 0 on dedicated endpoints, which bill by the hour). Absent on replies stored before per-turn items.",
          minimum: 0,
        }),
      ),
      ...PromptCacheFigures,
      status: Type.Optional(
        Type.Unsafe<'failed'>({ description: 'Only on a user message whose model call failed (it got no reply).', const: 'failed' }),
      ),
    },
    {
      description: 'A chat message (spec 2.4). Assistant messages carry the token and latency figures.',
      additionalProperties: false,
      if: { properties: { role: { const: 'assistant' } } },
      then: { required: ['tokens_in', 'tokens_out', 'tokens_total', 'latency_ms', 'model_id'] },
    },
  ),
);

/** The chat thread error body. */
export const ThreadError = Named(
  'ThreadError',
  Type.Object(
    {
      success: Type.Unsafe<false>({ const: false }),
      error: Type.String(),
      details: Type.Optional(Type.String()),
      threadId: Type.Unsafe<''>({ const: '' }),
      messages: Type.Array(Ref(ChatMessage), { description: "Always empty on an error; its items would be the thread's messages.", maxItems: 0 }),
    },
    { description: 'The chat thread error body.', additionalProperties: false },
  ),
);

/** An opaque pagination cursor. */
export const Cursor = Named(
  'Cursor',
  Type.String({ description: 'An opaque pagination cursor.', minLength: 1, maxLength: 2048, pattern: '^[A-Za-z0-9_-]+$' }),
);

/** Pass as `cursor` to read the next page; null on the last page. */
export const NextCursor = Named(
  'NextCursor',
  OneOf([Ref(Cursor), Type.Null()], { description: 'Pass as `cursor` to read the next page; null on the last page.' }),
);

export const Role = Named('Role', Type.Unsafe<'super_admin' | 'admin' | 'user'>({ type: 'string', enum: ['super_admin', 'admin', 'user'] }));

/** Spec section 3: InService (operational), Creating, Updating, Deleting, Failed (operation failed), OutOfService (not operational). */
export const ResourceStatus = Named(
  'ResourceStatus',
  Type.Unsafe<'InService' | 'Creating' | 'Updating' | 'Deleting' | 'Failed' | 'OutOfService'>({
    description: 'Spec section 3: InService (operational), Creating, Updating, Deleting, Failed (operation failed), OutOfService (not operational).',
    type: 'string',
    enum: ['InService', 'Creating', 'Updating', 'Deleting', 'Failed', 'OutOfService'],
  }),
);

/** An AWS region such as us-east-1. */
export const Region = Named(
  'Region',
  Type.String({ description: 'An AWS region such as us-east-1.', maxLength: 32, pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]$' }),
);

/** A user (spec 2.1). The password hash is never returned. */
export const User = Named(
  'User',
  Type.Object(
    {
      id: Ref(Uuid),
      username: Type.String(),
      email: Type.String(),
      name: Type.String({ description: 'Display name.' }),
      organization: Type.String(),
      cloud_region: Type.String({ description: 'Region identifier of the user.' }),
      role: Ref(Role),
      is_active: Type.Boolean({ description: 'A deactivated account is rejected with 401.' }),
      created_at: Ref(Timestamp),
      updated_at: Ref(Timestamp),
      last_login: OneOf([Ref(Timestamp), Type.Null()], { description: 'Null until the first login.' }),
      monthly_budget_usd: Type.Optional(
        Type.Unsafe<number | null>({
          description: "USD per calendar month (UTC) for the user's chat and /v1 calls together; null means no budget.",
          type: ['number', 'null'],
        }),
      ),
      alert_thresholds: Type.Optional(Ref(BudgetAlertThresholds, { description: "In admins' answers (GET, PATCH /api/admin/users)." })),
    },
    { description: 'A user (spec 2.1). The password hash is never returned.', additionalProperties: false },
  ),
);

/** 8 to 72 characters and at most 72 bytes in UTF-8, because bcrypt reads no more: 72 ASCII */
export const Password = Named(
  'Password',
  Type.String({
    description: `8 to 72 characters and at most 72 bytes in UTF-8, because bcrypt reads no more: 72 ASCII
characters, fewer when some take several bytes (24 characters of 3 bytes each, such as €).
JSON Schema counts characters, so the byte limit is checked by the service (400 "Password
must be at most 72 bytes").
`,
    minLength: 8,
    maxLength: 72,
  }),
);

/** The name of a managed or hosted resource: 1 to 63 letters, digits and hyphens; unique per platform (case-insensitive). */
export const EndpointName = Named(
  'EndpointName',
  Type.String({
    description: 'The name of a managed or hosted resource: 1 to 63 letters, digits and hyphens; unique per platform (case-insensitive).',
    minLength: 1,
    maxLength: 63,
    pattern: '^[a-zA-Z0-9-]{1,63}$',
  }),
);

/** The name of a dedicated endpoint, SageMaker's naming rule: 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit; unique per platform (case-insensitive). */
export const DedicatedEndpointName = Named(
  'DedicatedEndpointName',
  Type.String({
    description:
      "The name of a dedicated endpoint, SageMaker's naming rule: 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit; unique per platform (case-insensitive).",
    minLength: 1,
    maxLength: 63,
    pattern: '^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$',
  }),
);

/** A managed model id such as anthropic.claude-3-haiku-20240307-v1:0. */
export const ManagedModelId = Named(
  'ManagedModelId',
  Type.String({
    description: 'A managed model id such as anthropic.claude-3-haiku-20240307-v1:0.',
    minLength: 1,
    maxLength: 200,
    pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$',
  }),
);

/** A hosted model id such as meta/llama-3.1-8b-instruct (a namespace, a slash, a name; at most two slashes). */
export const HostedModelId = Named(
  'HostedModelId',
  Type.String({
    description: 'A hosted model id such as meta/llama-3.1-8b-instruct (a namespace, a slash, a name; at most two slashes).',
    minLength: 1,
    maxLength: 302,
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,2}$',
  }),
);

/** A SageMaker instance type such as ml.g5.xlarge. */
export const InstanceType = Named(
  'InstanceType',
  Type.String({
    description: 'A SageMaker instance type such as ml.g5.xlarge.',
    minLength: 1,
    maxLength: 64,
    pattern: '^ml\\.[a-z0-9]+\\.[a-z0-9]+$',
  }),
);

/** Stop the endpoint after this many minutes without invocations (CloudWatch AWS/SageMaker Invocations, which counts every caller, and chat turns through this service); 1 to 10080 (a week). */
export const IdleTimeoutMinutes = Named(
  'IdleTimeoutMinutes',
  Type.Integer({
    description:
      'Stop the endpoint after this many minutes without invocations (CloudWatch AWS/SageMaker Invocations, which counts every caller, and chat turns through this service); 1 to 10080 (a week).',
    minimum: 1,
    maximum: 10080,
  }),
);

/** Stop the endpoint when the month's accrued cost (billable instance-hours x the hourly price) reaches this many USD; from 0.000000001 (the smallest amount the table holds exactly) to 1e9. */
export const MonthlyBudgetUsd = Named(
  'MonthlyBudgetUsd',
  Type.Number({
    description:
      "Stop the endpoint when the month's accrued cost (billable instance-hours x the hourly price) reaches this many USD; from 0.000000001 (the smallest amount the table holds exactly) to 1e9.",
    minimum: 1e-9,
    maximum: 1000000000,
  }),
);

/** Who besides admins and super_admins (who always may) may call the resource's model: every user, */
export const ResourceAccessSetting = Named(
  'ResourceAccessSetting',
  Type.Object(
    {
      everyone: Type.Boolean(),
      user_ids: Type.Array(Ref(Uuid)),
      team_ids: Type.Array(Ref(Uuid)),
      default: Type.Boolean({
        description: "true: no admin has set it, and the platform's default applies (managed and hosted: everyone; dedicated: admins only).",
      }),
      updated_at: OneOf([Ref(Timestamp), Type.Null()], { description: 'When an admin last set it; null for the default.' }),
      updated_by: Type.Unsafe<string | null>({
        description: 'The admin who last set it (username); null for the default.',
        type: ['string', 'null'],
      }),
    },
    {
      description: `Who besides admins and super_admins (who always may) may call the resource's model: every user,
or the users listed and the members of the teams listed.
`,
      additionalProperties: false,
    },
  ),
);

/** What the resource's model does, as the service decides a request by (a request for what it does not do */
export const ResourceCapabilities = Named(
  'ResourceCapabilities',
  Type.Object(
    {
      chat: Type.Boolean(),
      embeddings: Type.Boolean({ description: 'Vectors for texts (/v1/embeddings).' }),
      streaming: Type.Boolean({ description: 'The answer as it is generated (server-sent events).' }),
      tools: Type.Boolean({ description: 'Function calling.' }),
      json_output: Type.Boolean({ description: 'An answer that is a JSON document (response_format).' }),
      image_input: Type.Boolean({ description: 'Images among the input.' }),
      prompt_caching: Type.Boolean({
        description: 'Prompt-cache checkpoints are honoured (cache reads and writes are priced apart); elsewhere a checkpoint changes nothing.',
      }),
      cache_ttls: Type.Array(Type.Unsafe<'5m' | '1h'>({ type: 'string', enum: ['5m', '1h'] }), {
        description: 'The checkpoint lifetimes the model accepts; empty where it caches nothing.',
      }),
      service_tiers: Type.Array(Type.Unsafe<'default' | 'flex' | 'priority'>({ type: 'string', enum: ['default', 'flex', 'priority'] }), {
        description: 'The processing tiers the model offers (service_tier); default only where the platform has one.',
      }),
      max_output_tokens: Type.Unsafe<number | null>({
        description: 'The most output tokens the model writes in one call, where the service knows it; null otherwise.',
        type: ['integer', 'null'],
      }),
    },
    {
      description: `What the resource's model does, as the service decides a request by (a request for what it does not do
is a 400 without a platform call): recorded at deploy from the platform's catalogue, derived from the
model id or container image for resources tracked before.
`,
      additionalProperties: false,
    },
  ),
);

/** How a platform's resources live (a resource's, and GET /api/platforms'), in the words of the one who shows it. */
export const Lifecycle = (description: string) => Type.Unsafe<'endpoint' | 'access'>({ description, type: 'string', enum: ['endpoint', 'access'] });

/** How calls on a platform are paid for (a resource's, and GET /api/platforms'). */
export const Billing = (description: string) =>
  Type.Unsafe<'per_token' | 'per_hour'>({ description, type: 'string', enum: ['per_token', 'per_hour'] });

/** A deployed resource (spec 2.3). */
export const Resource = Named(
  'Resource',
  Type.Object(
    {
      id: Ref(Uuid),
      name: Type.String(),
      type: Ref(Platform),
      status: Ref(ResourceStatus),
      health: Type.Unsafe<'healthy' | 'unknown' | 'unhealthy'>({
        description: 'healthy when InService; unknown otherwise.',
        type: 'string',
        enum: ['healthy', 'unknown', 'unhealthy'],
      }),
      endpoint_url: Type.String({ format: 'uri' }),
      region: Type.String(),
      instance_type: Type.Unsafe<string | null>({ description: 'Null for managed and hosted resources.', type: ['string', 'null'] }),
      instance_count: Type.Unsafe<number | null>({ description: 'Null for managed and hosted resources.', type: ['integer', 'null'] }),
      model_name: Type.String(),
      created_at: Ref(Timestamp),
      last_updated: Ref(Timestamp),
      lifecycle: Lifecycle(`endpoint: the service runs infrastructure for it (dedicated): its status is read from the platform,
it has guardrails and metrics, start and restart act on it, and delete takes minutes (Deleting, then
404). access: the platform runs the model (managed, hosted): the resource is access to it, always
InService, and delete only stops tracking it, at once.
`),
      billing: Billing(
        'per_hour, the instances bill until deleted whether called or not (a call costs nothing more); per_token, each call is priced from the price table.',
      ),
      capabilities: Ref(ResourceCapabilities),
      actions: Type.Array(
        Type.Unsafe<'start' | 'stop' | 'restart' | 'delete' | 'update_guardrails' | 'update_access'>({
          type: 'string',
          enum: ['start', 'stop', 'restart', 'delete', 'update_guardrails', 'update_access'],
        }),
        {
          description: `What the caller may do to the resource now, given its status and the caller's role (empty for a
user): start, restart, delete (POST .../control), update_guardrails (PATCH /api/resources/{resourceId}),
update_access (PUT .../access). start on an InService endpoint is accepted as a restart and listed as
restart only; a start listed may still be refused (409) while the monthly budget is spent.
`,
        },
      ),
      access: Type.Optional(
        Ref(ResourceAccessSetting, { description: 'In the listing (GET /api/resources), for admins only. Who may use the resource.' }),
      ),
    },
    { description: 'A deployed resource (spec 2.3).', additionalProperties: false },
  ),
);

/** The user's message, 1 to 32000 characters (UTF-16 code units, as JavaScript counts them), not only white space (JavaScript's `\s`, what `String.prototype.trim` removes). */
export const ChatMessageText = Named(
  'ChatMessageText',
  Type.String({
    description:
      "The user's message, 1 to 32000 characters (UTF-16 code units, as JavaScript counts them), not only white space (JavaScript's `\\s`, what `String.prototype.trim` removes).",
    minLength: 1,
    maxLength: 32000,
    pattern: '\\S',
  }),
);

export const DedicatedPriceEntryInput = Named(
  'DedicatedPriceEntryInput',
  Type.Object(
    {
      platform: Type.Unsafe<'dedicated'>({ const: 'dedicated' }),
      instanceType: Ref(InstanceType),
      hourly_usd: Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 10000 })], {
        description: 'USD per instance-hour, 0 or from 0.000000001 to 10000.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const HostedPriceEntryInput = Named(
  'HostedPriceEntryInput',
  Type.Object(
    {
      platform: Type.Unsafe<'hosted'>({ const: 'hosted' }),
      modelId: Ref(HostedModelId),
      per_1k_input_tokens_usd: Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
        description: 'USD per 1K input tokens, 0 or from 0.000000001 to 1000.',
      }),
      per_1k_output_tokens_usd: Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
        description: 'USD per 1K output tokens, 0 or from 0.000000001 to 1000.',
      }),
      per_1k_cache_read_tokens_usd: Type.Optional(
        Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
          description: 'USD per 1K prompt tokens read from the prompt cache, 0 or from 0.000000001 to 1000.',
        }),
      ),
      per_1k_cache_write_tokens_usd: Type.Optional(
        Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
          description: 'USD per 1K prompt tokens written to the cache with the 5-minute TTL, 0 or from 0.000000001 to 1000.',
        }),
      ),
      per_1k_cache_write_1h_tokens_usd: Type.Optional(
        Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
          description: 'USD per 1K prompt tokens written to the cache with the 1-hour TTL, 0 or from 0.000000001 to 1000.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const ManagedPriceEntryInput = Named(
  'ManagedPriceEntryInput',
  Type.Object(
    {
      platform: Type.Unsafe<'managed'>({ const: 'managed' }),
      modelId: Ref(ManagedModelId),
      per_1k_input_tokens_usd: Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
        description: 'USD per 1K input tokens, 0 or from 0.000000001 to 1000.',
      }),
      per_1k_output_tokens_usd: Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
        description: 'USD per 1K output tokens, 0 or from 0.000000001 to 1000.',
      }),
      per_1k_cache_read_tokens_usd: Type.Optional(
        Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
          description: 'USD per 1K prompt tokens read from the prompt cache, 0 or from 0.000000001 to 1000.',
        }),
      ),
      per_1k_cache_write_tokens_usd: Type.Optional(
        Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
          description: 'USD per 1K prompt tokens written to the cache with the 5-minute TTL, 0 or from 0.000000001 to 1000.',
        }),
      ),
      per_1k_cache_write_1h_tokens_usd: Type.Optional(
        Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000 })], {
          description: 'USD per 1K prompt tokens written to the cache with the 1-hour TTL, 0 or from 0.000000001 to 1000.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

/** One entry per platform shape, told apart by `platform`: managed and hosted entries take modelId and the two per-1K token prices, dedicated entries instanceType and hourly_usd. */
export const PriceEntryInput = Named(
  'PriceEntryInput',
  OneOf([Ref(ManagedPriceEntryInput), Ref(HostedPriceEntryInput), Ref(DedicatedPriceEntryInput)], {
    description:
      'One entry per platform shape, told apart by `platform`: managed and hosted entries take modelId and the two per-1K token prices, dedicated entries instanceType and hourly_usd.',
    type: 'object',
    discriminator: {
      propertyName: 'platform',
      mapping: {
        managed: '#/components/schemas/ManagedPriceEntryInput',
        hosted: '#/components/schemas/HostedPriceEntryInput',
        dedicated: '#/components/schemas/DedicatedPriceEntryInput',
      },
    },
  }),
);
