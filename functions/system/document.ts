// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The contract's head (info, servers, tags, default security) and its shared components, but schemas. */
import { Type } from '@sinclair/typebox';
import { OneOf, RATE_LIMIT_HEADERS, Ref } from '../../lib/http/contract';
import { BedrockErrorBody } from '../bedrock/response-schemas';
import { AnthropicErrorBody, Cursor, ErrorSchema, MessageError, OpenAiErrorBody, ThreadError, Uuid } from './response-schemas';

export const document = {
  openapi: '3.1.0',
  info: {
    title: 'Model Operations Service',
    version: '1.0.0',
    summary: 'Deploy, monitor, control and chat with AI models on the managed, dedicated and hosted platforms.',
    description: `Authenticated users log in for a 24-hour bearer token (JWT), deploy models (or register access
to them) on three platforms, list each platform's models, read the status, metrics and costs of
deployed resources and control them, chat with deployed models in conversations and threads, and
read usage figures. Admins read masked platform credentials and manage prices; super_admins
manage users and read the audit log.

## Roles

Every operation names the roles allowed to call it in its description and in the \`x-roles\`
extension (\`[]\` means no token is needed). A missing, malformed, expired or badly signed token,
or a deactivated account, is a 401; a valid token whose role is not listed is a 403.

| Role | May call |
|---|---|
| user | reading models and resources, chat, conversations, usage, pricing (read) |
| admin | everything a user may, plus deploy, control, credentials, model sync, pricing (write) |
| super_admin | everything, plus user management and the audit log |

## Errors

Every error body is JSON with \`success: false\`. The general shape carries the text in \`error\`
(and sometimes a \`details\` string); login and validate carry it in \`message\` instead; the chat
thread endpoints add \`threadId: ""\` and \`messages: []\`. Unknown routes (any method and path not
listed here) answer 404 with the general shape and \`error: "Route not found"\`, and under /v1
with OpenAI's shape and code \`unknown_url\` (see \`x-unmatched-route\`).

## Request bodies

A request body is JSON, sent with \`Content-Type: application/json\`, optionally with
\`; charset=utf-8\` (type and parameter in any case; JSON is UTF-8). Any other Content-Type (a
\`+json\` type, another charset or parameter, a list of types, form data) or none at all is
refused with 415 in the error shape, before the body is read. A request without a body (GET,
DELETE, POST /api/auth/logout, POST /api/admin/sync-models, POST /api/pricing/update) needs no
Content-Type; an empty or blank body counts as none. Operations that document no request body
accept none: a body other than \`{}\` is a 400. Bodies are limited to 128 KiB (413).

## Answers that do not come from the service

Every answer the service's code gives is in the shapes above. In front of it, two AWS layers
answer some requests by themselves, in their own shape, before any function runs:

| Layer and case | Status | Body |
|---|---|---|
| API Gateway (HTTP API): request line and headers over 10,240 bytes | 413 / 431 / 400 | \`{"message":"..."}\` or empty |
| API Gateway: body over 10 MB (the service's own limit, 128 KiB, answers 413 in its shape first for anything smaller) | 413 | \`{"message":"Request Entity Too Large"}\` |
| API Gateway: account throttle (10,000 requests/s per Region, burst 5,000, shared by every API of the account) or a stage/route throttle | 429 | \`{"message":"Too Many Requests"}\` |
| API Gateway: the function did not answer within the 30 s integration timeout (functions stop at 29 s) | 503 / 504 | \`{"message":"Service Unavailable"}\` or \`{"message":"Endpoint request timed out"}\` |
| API Gateway: the function crashed, was throttled by Lambda, or returned no valid response | 500 / 502 | \`{"message":"Internal Server Error"}\` |
| CloudFront (the console distribution): a method a behaviour does not allow, origin unreachable or timed out | 403 / 502 / 504 | CloudFront's HTML error page |

An unknown route is not among them: the \`$default\` route sends every unmatched method and path
to a function that answers 404 in the general shape (OpenAI's under /v1: \`x-unmatched-route\`). Clients should
therefore read \`success\`/\`error\` when the body has them and fall back to the status (and
\`message\`) otherwise. Locally, the front door of \`npm start\` (local/front-door.ts) rewrites what
serverless-offline, hapi and Node answer by themselves (malformed percent-encoding, Content-Type
lists, oversize headers, a crashed function) into the service's shapes (OpenAI's on /v1).
Sources: AWS, "Quotas for configuring and running an HTTP API in API Gateway" and "Amazon API
Gateway quotas".

## Numbers

JSON numbers are read as IEEE 754 doubles: about 15 to 17 significant digits (more are
rounded), integers exact up to 2^53, \`1e3\` is 1000, \`-0\` is 0, a number that rounds to 0
(\`1e-400\`) is 0 and one too large for a double (\`1e400\`) is refused. Every numeric field of a
request states its range, and the service stores and computes with every value in it exactly
(DynamoDB holds 38 significant digits, magnitudes from 1E-130 to 9.99E+125): a value outside is a
400 naming the field, never a server error. Amounts of money are exactly 0 or from 0.000000001
(a billionth of a dollar) to the field's maximum.

## Versioning

This is version 1 of the API. The version is implicit: v1 paths carry no version segment
(\`/api/...\`). A future incompatible version will live beside them under its own path prefix
(\`/api/v2/...\`), described by its own document with \`info.version\` 2.x. The v1 paths below will
keep their meaning and shapes while v2 exists: changes to v1 are additive only (new
operations, new optional request fields, new response fields), never a removed field, a
changed type or a new required input. \`info.version\` follows semantic versioning for this
document: the minor version grows with additive changes, the major version names the path
prefix.
`,
    contact: { name: 'Model Operations team' },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [
    {
      url: '{baseUrl}',
      description:
        "The service's base address. Development is the local server that `npm start` runs; production is the deployed API Gateway address (or its custom domain).",
      variables: {
        baseUrl: {
          default: 'http://localhost:3000',
          description:
            'http://localhost:3000 for `npm start`; https://<api-id>.execute-api.<region>.amazonaws.com (or a custom domain) once deployed',
        },
      },
    },
  ],
  tags: [
    { name: 'auth', description: 'Login, token validation, logout and platform credentials (spec 4.1).' },
    { name: 'admin', description: 'User management and the audit log (super_admin).' },
    { name: 'models', description: 'Model catalogues and model detail (spec 4.2), catalogue sync (spec 4.8).' },
    { name: 'deploy', description: 'Deploying models on the three platforms (spec 4.3).' },
    { name: 'resources', description: 'Deployed resources, their status and control (spec 4.4), and the guardrails of dedicated endpoints.' },
    { name: 'orphans', description: "Endpoints on the dedicated platform that carry this service's tags but no tracked resource (admin)." },
    { name: 'chat', description: 'Chat in threads and legacy chat (spec 4.5).' },
    { name: 'conversations', description: 'Conversations (spec 4.7, 4.8).' },
    { name: 'usage', description: 'Usage figures (spec 4.6).' },
    { name: 'pricing', description: 'The price table used for costs and plans (spec 4.8).' },
    { name: 'keys', description: 'API keys for the OpenAI-compatible gateway.' },
    { name: 'alerts', description: 'Budget alerts, their channels and deliveries (admin).' },
    { name: 'teams', description: 'Teams, their members, budgets and rate limits.' },
    { name: 'routes', description: 'Routes: one /v1 model name over several resources, with fallbacks and shared cooldowns (docs/routes.md).' },
    { name: 'gateway', description: "The OpenAI-compatible gateway: OpenAI's own paths under /v1, API keys only." },
    {
      name: 'bedrock',
      description: "The Bedrock-compatible door: bedrock-runtime's paths under /bedrock, API keys as bearer tokens (docs/bedrock-door.md).",
    },
    { name: 'system', description: 'This document.' },
  ],
  security: [{ bearerAuth: [] }],
  'x-unmatched-route': { $ref: '#/components/responses/RouteNotFound' },
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: `\`Authorization: Bearer <token>\` with the token from POST /api/auth/login (HMAC-signed JWT,
24 hours, no refresh). The \`Bearer\` prefix is mandatory.
`,
      },
      apiKeyAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key (mo_...)',
        description: `\`Authorization: Bearer mo_...\` with a key from POST /api/keys. Accepted on /v1 only; a
login token there is refused (401), and so is a key on /api.
`,
      },
    },
    parameters: {
      Limit: {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'Page size, 1 to 100; default 20.',
        schema: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
      },
      MessageLimit: {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'Page size, 1 to 1000; default 200.',
        schema: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
      },
      Cursor: { name: 'cursor', in: 'query', required: false, description: 'The `nextCursor` of the previous page, unchanged.', schema: Ref(Cursor) },
      ResourceId: {
        name: 'resourceId',
        in: 'path',
        required: true,
        description: "The resource's id (the `id` of a deploy response or of GET /api/resources).",
        schema: Ref(Uuid),
      },
      TeamId: { name: 'teamId', in: 'path', required: true, description: "The team's id.", schema: Ref(Uuid) },
      AlertChannelId: {
        name: 'channelId',
        in: 'path',
        required: true,
        description: "The channel's id, as GET /api/alerts/channels lists it.",
        schema: Ref(Uuid),
      },
      OrphanEndpointName: {
        name: 'endpointName',
        in: 'path',
        required: true,
        description: "The orphan's endpoint name, as GET /api/admin/orphans lists it.",
        schema: Type.String({ minLength: 1, maxLength: 63 }),
      },
    },
    headers: {
      RetryAfter: { description: 'Seconds to wait before retrying.', schema: Type.String({ pattern: '^[0-9]+$' }) },
      ModelOpsResource: {
        description:
          'The endpoint name of the resource that answered: the one named, or, through a route (docs/routes.md), the target that answered.',
        schema: Type.String(),
      },
      ModelOpsAttempts: {
        description:
          "The attempts the call took, the one that answered included: 1 for a direct call and when a route's first target answered; each fall-over to the next target adds one.",
        schema: Type.String({ pattern: '^[1-9][0-9]*$' }),
      },
      RateLimitLimitRequests: {
        description:
          "Requests per minute allowed to the caller's tightest limited level (its key's or a team's `rpm_limit`). Only when a limit applies.",
        schema: Type.String({ pattern: '^[0-9]+$' }),
      },
      RateLimitRemainingRequests: { description: 'Requests left in the current minute at that level.', schema: Type.String({ pattern: '^[0-9]+$' }) },
      RateLimitResetRequests: { description: "Time until the window resets, in OpenAI's form (`23.5s`, `350ms`).", schema: Type.String() },
      RateLimitLimitTokens: {
        description: "Tokens per minute allowed to the caller's tightest limited level (`tpm_limit`). Only when a limit applies.",
        schema: Type.String({ pattern: '^[0-9]+$' }),
      },
      RateLimitRemainingTokens: {
        description: 'Tokens left in the current minute at that level (calls in flight count their bound).',
        schema: Type.String({ pattern: '^[0-9]+$' }),
      },
      RateLimitResetTokens: { description: "Time until the window resets, in OpenAI's form.", schema: Type.String() },
      CatalogueSource: {
        description:
          'Where the catalogue came from, `cache` (fresh copy), `live` (the platform just now) or `stale` (an expired copy, served because the platform failed).',
        schema: Type.Unsafe<'cache' | 'live' | 'stale'>({ type: 'string', enum: ['cache', 'live', 'stale'] }),
      },
      CatalogueFetchedAt: { description: 'When the catalogue was fetched from the platform.', schema: Type.String({ format: 'date-time' }) },
    },
    responses: {
      OpenAiError: {
        description: `OpenAI's error body. 400 invalid_request_error (\`param\` names the field); 404
\`model_not_found\` (and \`unknown_url\` for a path the gateway does not serve); 413 a body over the limit; 415 a body that is not sent as application/json; 429 \`budget_exceeded\` (type
insufficient_quota) or \`rate_limit_exceeded\` (type requests or tokens, with Retry-After); 502 the platform failed, 504 it timed out (type api_error); 503 the
database or the model is not available now (\`Retry-After\`), or no target of a route can answer now (\`route_unavailable\`, \`Retry-After\` the shortest cooldown left).
`,
        content: { 'application/json': { schema: Ref(OpenAiErrorBody) } },
      },
      OpenAiTooManyRequests: {
        description: `A budget cannot cover the call (\`budget_exceeded\`, type insufficient_quota, the message
naming the level), or a rate limit is used up this minute (\`rate_limit_exceeded\`, type
\`requests\` or \`tokens\`, with \`Retry-After\` and the x-ratelimit-* headers), or the platform
throttles the model (\`rate_limit_exceeded\`, type \`requests\`, with \`Retry-After\`): a direct call
to a throttled model, or a route whose every target the caller may use is throttled or cooling
down from a throttle (\`Retry-After\`: the shortest cooldown left).
`,
        headers: {
          'Retry-After': { $ref: '#/components/headers/RetryAfter' },
          ...RATE_LIMIT_HEADERS,
        },
        content: { 'application/json': { schema: Ref(OpenAiErrorBody) } },
      },
      BedrockError: {
        description:
          "Bedrock's error: its name in `x-amzn-errortype` (ValidationException 400, AccessDeniedException 403 for a missing or unknown key or a spent budget, ResourceNotFoundException 404, ThrottlingException 429, InternalServerException 500 or 502 when the platform failed, ServiceUnavailableException 503, ModelTimeoutException 504; a body too large or not JSON keeps its 413 or 415), the text in `message`.",
        headers: { 'x-amzn-errortype': { description: "The error's name, as the AWS SDKs read it.", schema: Type.String() } },
        content: { 'application/json': { schema: Ref(BedrockErrorBody) } },
      },
      AnthropicTooManyRequests: {
        description:
          "Anthropic's `rate_limit_error`: a rate limit is used up this minute (with `Retry-After` and the x-ratelimit-* headers), the platform throttles the model, or every target of a route is throttled (`Retry-After`: the shortest cooldown left). A budget that cannot cover the call is the same status and type, its message naming the level.",
        headers: {
          'Retry-After': { $ref: '#/components/headers/RetryAfter' },
          ...RATE_LIMIT_HEADERS,
        },
        content: { 'application/json': { schema: Ref(AnthropicErrorBody) } },
      },
      AnthropicError: {
        description: "Anthropic's error body, with the type its status has (401 authentication_error for a missing or unknown key).",
        content: { 'application/json': { schema: Ref(AnthropicErrorBody) } },
      },
      OpenAiUnauthorized: {
        description: 'A missing, malformed, unknown, revoked or expired API key, a login token, or a deactivated owner: code invalid_api_key.',
        content: { 'application/json': { schema: Ref(OpenAiErrorBody) } },
      },
      BadRequest: {
        description: 'Invalid request parameters (the text names the field).',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      Unauthorized: {
        description:
          'Authentication required: no token, a malformed, expired or badly signed token, or a deactivated account (the reason is in `details`).',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      Forbidden: {
        description:
          'Insufficient permissions: the role is not allowed ("Admin privileges required", "Super admin privileges required"), or the action is reserved to another user.',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      NotFound: { description: 'Not found.', content: { 'application/json': { schema: Ref(ErrorSchema) } } },
      Conflict: {
        description: 'Conflicts with the current state (a name already taken, an operation under way, a concurrent change).',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      BudgetExceeded: {
        description:
          "A monthly budget (the caller's, one of their teams', or theirs within a team; the message names it) cannot cover an upper bound of this request's cost, or one of their teams' rate limits is used up this minute (with Retry-After); refused before the model is asked, nothing is stored.",
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      PayloadTooLarge: {
        description: 'The request body is larger than the limit (128 KiB by default).',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      UnsupportedMediaType: {
        description:
          'A request body sent under another Content-Type than application/json (charset=utf-8 optional), or with none. See "Request bodies".',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      InternalError: {
        description: 'Server-side error (for deploy dedicated, the platform refused the deployment; the reason is given).',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      BadGateway: {
        description: 'External service error; the text names the platform and, where known, the upstream status.',
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      ServiceUnavailable: {
        description: 'The database or a platform is temporarily unavailable or throttling; retry after the given delay.',
        headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        content: { 'application/json': { schema: Ref(ErrorSchema) } },
      },
      GatewayTimeout: { description: 'A platform did not answer in time.', content: { 'application/json': { schema: Ref(ErrorSchema) } } },
      RouteNotFound: {
        description: `No such route (any method and path not in this document): the general shape, and under /v1
OpenAI's, as OpenAI answers an unknown URL (type \`invalid_request_error\`, code \`unknown_url\`,
a message naming the method and path), so OpenAI's clients raise their not-found error.
`,
        content: {
          'application/json': {
            schema: OneOf([Ref(ErrorSchema), Ref(OpenAiErrorBody)]),
            examples: {
              api: { value: { success: false, error: 'Route not found', details: 'GET /api/no/such/route' } },
              gateway: {
                value: {
                  error: {
                    message:
                      'Unknown request URL: POST /v1/completions. Please check the URL for typos; this gateway serves GET /v1/models, POST /v1/chat/completions, POST /v1/embeddings, POST /v1/responses and POST /v1/messages',
                    type: 'invalid_request_error',
                    code: 'unknown_url',
                    param: null,
                  },
                },
              },
            },
          },
        },
      },
      MessageBadRequest: {
        description: 'Invalid request ("Username and password are required", malformed JSON, an unknown field).',
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      MessageUnauthorized: {
        description:
          '"Invalid username or password" (login); "No token provided" or "Invalid or expired token" (validate; a token without the Bearer prefix says so in `details`); "Account is deactivated".',
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      MessageForbidden: {
        description: 'Password login is turned off (`PASSWORD_LOGIN=false`): log in with single sign-on.',
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      MessagePayloadTooLarge: {
        description: 'The request body is larger than the limit.',
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      MessageUnsupportedMediaType: {
        description: 'A request body sent under another Content-Type than application/json (charset=utf-8 optional), or with none.',
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      MessageTooManyRequests: {
        description: 'Too many failed logins for this account or from this address; retry after the given delay.',
        headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      MessageInternalError: { description: 'Server-side error.', content: { 'application/json': { schema: Ref(MessageError) } } },
      MessageServiceUnavailable: {
        description: 'The database is temporarily unavailable; retry after the given delay.',
        headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        content: { 'application/json': { schema: Ref(MessageError) } },
      },
      ThreadBadRequest: {
        description: 'Invalid request (message, conversationId or resourceId missing or invalid).',
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadUnauthorized: { description: 'Authentication required.', content: { 'application/json': { schema: Ref(ThreadError) } } },
      ThreadForbidden: {
        description: "Only the conversation's owner can post messages into it.",
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadNotFound: {
        description: 'The conversation, the thread or the resource was not found.',
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadConflict: { description: 'The resource is not InService.', content: { 'application/json': { schema: Ref(ThreadError) } } },
      ThreadPayloadTooLarge: {
        description: 'The request body is larger than the limit.',
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadBudgetExceeded: {
        description:
          "A monthly budget (the caller's, one of their teams', or theirs within a team; the message names it) cannot cover an upper bound of this turn's cost, or one of their teams' rate limits is used up this minute (with Retry-After); refused before the model is asked, nothing is stored.",
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadUnsupportedMediaType: {
        description: 'A request body sent under another Content-Type than application/json (charset=utf-8 optional), or with none.',
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadInternalError: {
        description: 'The upstream model call failed, or another server-side error.',
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
      ThreadServiceUnavailable: {
        description: 'The database is temporarily unavailable; retry after the given delay.',
        headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        content: { 'application/json': { schema: Ref(ThreadError) } },
      },
    },
  },
};
