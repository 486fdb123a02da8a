// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/gateway/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { AnthropicMessage, ChatCompletion, MessageTokensCount, Embeddings, OpenAiModelList, ResponseSchema } from './response-schemas';
import { Parameters, RATE_LIMIT_HEADERS, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { ChatCompletionBody, EmbeddingsBody, MessagesBody, MessagesCountTokensBody, ResponsePath, ResponsesBody } from './schemas';

/**
 * The headers of an answered model call, the same on the four /v1 calls (chat completions,
 * embeddings, responses, messages): its cost (`cost`: what the header says on that route), which
 * resource answered and after how many attempts (a route's fall-over: docs/routes.md), the request's
 * id and the rate windows; `own` adds a route's own.
 */
function answerHeaders(cost: string, own: Record<string, unknown> = {}) {
  return {
    ...own,
    'x-model-ops-cost-usd': { description: cost, schema: Type.String() },
    'x-model-ops-resource': { $ref: '#/components/headers/ModelOpsResource' },
    'x-model-ops-attempts': { $ref: '#/components/headers/ModelOpsAttempts' },
    'x-request-id': { description: "The request's id, as the logs know it.", schema: Type.String() },
    ...RATE_LIMIT_HEADERS,
  };
}

export const operations: Operations = {
  /** GET /v1/models */
  listModelsV1: {
    tags: ['gateway'],
    summary: "The models this API key may call (OpenAI's model list)",
    description: `API key only (a login token is refused with 401). The deployed resources in service that
the key may use (\`resource_ids\` limits a key) and its owner may use (the resource's access:
\`PUT /api/resources/{resourceId}/access\`; admins may use every resource), as OpenAI's list
object. A model's \`id\` is its resource's endpoint name; a name two platforms share among the
key's resources is listed only as \`<platform>/<name>\` (\`managed/x\`, \`hosted/x\`). \`owned_by\`
is the platform; \`capabilities\` what the model can do (chat, stream, tools, json_output,
image_input, embeddings): embedding models are listed too.
`,
    responses: {
      '200': {
        description: "OpenAI's list object.",
        headers: RATE_LIMIT_HEADERS,
        content: { 'application/json': { schema: Ref(OpenAiModelList) } },
      },
      ...errors('openai', 400, 401, 413, 415, 500, 503),
    },
  },

  /** POST /v1/chat/completions */
  chatCompletions: {
    tags: ['gateway'],
    summary: "A chat completion on a deployed model (OpenAI's Chat Completions API)",
    description: `API key only (a login token is refused with 401). OpenAI's request and response, on every
platform: tools (\`tools\`, \`tool_choice\`, \`parallel_tool_calls\`, assistant \`tool_calls\` and
\`tool\` messages; \`finish_reason: tool_calls\`), structured output (\`response_format\`
json_object or json_schema: the content parses and, with a schema, validates; an answer that
does not is a 502, still charged; a schema holding \`pattern\`, \`patternProperties\` or
\`format: "regex"\` is a 400 whose \`param\` is its path) and images (\`image_url\` parts with base64 \`data:\` URLs;
http(s) URLs are a 400). A model that lacks a feature asked for is a 400 naming it, with
\`param\` tools, response_format, messages (images) or model (an embedding model), code
\`model_not_capable\`. Before the model is asked, an upper bound of the call's cost (the prompt's bytes
plus a template allowance as input tokens, \`max_tokens\` as output tokens, at the model's
price) is held on every budget the call counts against, in one write, all or none: the
key's, its owner's, and for each team the call counts in (a team key's own team; for a
personal key every team of its owner) the team's and the owner's budget within the team.
After the answer each hold becomes the true cost. A budget that cannot cover the bound is a
429 \`budget_exceeded\` (type \`insufficient_quota\`) whose message names it ("this API key",
"Your monthly user budget", "Your monthly budget in team 'x'", "team 'x'"), before the model
is asked. A model the key or its owner may not use (the key's \`resource_ids\`, the resource's
access) is a 404 \`model_not_found\`, exactly as a name nobody holds, as OpenAI answers a model
a key cannot use.

Rate limits: the key's \`rpm_limit\`/\`tpm_limit\` and those of each team the call counts in,
in fixed one-minute windows (UTC). A call takes one request and its token bound (the
prompt's bound plus \`max_tokens\`, as OpenAI counts for its limits) in the same write as the
budgets; once answered, the bound becomes its true tokens. Over a limit: 429 with code
\`rate_limit_exceeded\` (type \`requests\` or \`tokens\`), \`Retry-After\` (seconds to the next
window), nothing held. Every /v1 answer of a caller with a limit (this one, GET /v1/models,
errors after the key was accepted) carries OpenAI's \`x-ratelimit-limit-requests\`,
\`x-ratelimit-remaining-requests\`, \`x-ratelimit-reset-requests\` and the same three for
\`-tokens\`, for the level with the least left; a caller without any limit gets none. A platform failure is a 502 (a timeout 504) and costs nothing. Every answer carries
\`x-request-id\`; a completion also \`x-model-ops-cost-usd\` (its cost in USD, exact: up to 9 decimals, never rounded).
Neither the prompt nor the reply is stored.

\`stream: true\` answers \`text/event-stream\`: OpenAI's \`chat.completion.chunk\` events (a role
chunk, the text in \`delta.content\` pieces, a chunk with \`finish_reason\`), then, with
\`stream_options.include_usage\`, a chunk with \`choices: []\` and \`usage\`, then \`data: [DONE]\`.
The cost is known only at the end, so a stream has no \`x-model-ops-cost-usd\` header: the
usage chunk carries it as \`usage.cost_usd\`. Errors found before the first chunk (key, model,
budget, a platform refusing the call) are the usual JSON errors with their statuses; a
platform failing after the stream began is an event \`data: {"error": {message, type, code,
param}}\` (OpenAI's streaming error form) and no \`[DONE]\`. However a stream ends (completed,
failed, or the client hanging up) its reservation settles: to the platform's usage, or to an
estimate of what was produced (4 bytes a token) when the platform never reported one; a
stream that produced no text costs nothing. Behind the deployed CloudFront (and the local
front door) the chunks arrive as they are generated; the HTTP API route itself cannot stream
and sends the same events all at once.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(ChatCompletionBody, 'ChatCompletionRequest', {
            '': {
              description:
                "OpenAI's request, the part this gateway serves; other fields are refused by name (OpenAI's fields for features not offered as `unsupported_parameter`, anything else as an unknown field).",
            },
            '/properties/model': { description: "a model id from GET /v1/models (a resource's endpoint name)" },
            '/properties/messages/items': {
              description: 'system, developer, user, assistant or tool; function messages are not supported',
              discriminator: { propertyName: 'role' },
            },
            '/properties/messages/items/oneOf/0': { description: 'a system message takes role, content and name' },
            '/properties/messages/items/oneOf/0/properties/content': { description: 'text, or an array of text parts' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items': { description: 'a text part takes type, text and cache_control' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/messages/items/oneOf/1': { description: 'a developer message takes role, content and name' },
            '/properties/messages/items/oneOf/1/properties/content': { description: 'text, or an array of text parts' },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items': { description: 'a text part takes type, text and cache_control' },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/messages/items/oneOf/2': { description: 'a user message takes role, content and name' },
            '/properties/messages/items/oneOf/2/properties/content': { description: 'text, or an array of text and image_url parts' },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items': {
              description: 'text or image_url; audio and file parts are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/oneOf/0': {
              description: 'a text part takes type, text and cache_control',
            },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/oneOf/0/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1': {
              description: 'an image part takes type, image_url (url, detail) and cache_control',
            },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/image_url/properties/url': {
              description: 'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched',
            },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/messages/items/oneOf/3': { description: 'an assistant message takes role, content, tool_calls, refusal and name' },
            '/properties/messages/items/oneOf/3/properties/content': { description: 'text, an array of text parts, or null with tool_calls' },
            '/properties/messages/items/oneOf/3/properties/content/anyOf/1/items': {
              description: 'text or refusal',
              discriminator: { propertyName: 'type' },
            },
            '/properties/messages/items/oneOf/3/properties/content/anyOf/1/items/oneOf/0': {
              description: 'a text part takes type, text and cache_control',
            },
            '/properties/messages/items/oneOf/3/properties/content/anyOf/1/items/oneOf/0/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/messages/items/oneOf/3/properties/content/anyOf/1/items/oneOf/1': { description: 'a refusal part takes type and refusal' },
            '/properties/messages/items/oneOf/3/properties/tool_calls/items/properties/function/properties/name': {
              description: '1 to 64 letters, digits, underscores and hyphens',
            },
            '/properties/messages/items/oneOf/3/properties/tool_calls/items/properties/function/properties/arguments': {
              description: 'the arguments as JSON text',
            },
            '/properties/messages/items/oneOf/3/properties/refusal': { description: 'string, or null' },
            '/properties/messages/items/oneOf/4': { description: 'a tool message takes role, tool_call_id, content and name' },
            '/properties/messages/items/oneOf/4/properties/content': { description: 'text, or an array of text parts' },
            '/properties/messages/items/oneOf/4/properties/content/anyOf/1/items': { description: 'a text part takes type, text and cache_control' },
            '/properties/messages/items/oneOf/4/properties/content/anyOf/1/items/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/stop': { description: 'a stop sequence, or up to 4' },
            '/properties/stream_options': { description: 'object, or null' },
            '/properties/tools/items': {
              description: 'function: the only kind of tool; built-in tools are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/tools/items/oneOf/0/properties/function/properties/name': {
              description: '1 to 64 letters, digits, underscores and hyphens',
            },
            '/properties/tools/items/oneOf/0/properties/function/properties/strict': { description: 'boolean, or null' },
            '/properties/tools/items/oneOf/0/properties/cache_control': {
              description: 'a prompt-cache checkpoint after this part or tool (ephemeral; 5m unless ttl says 1h), or null',
            },
            '/properties/tool_choice': { description: 'auto, none, required, or {"type": "function", "function": {"name": …}}' },
            '/properties/tool_choice/anyOf/3/properties/function/properties/name': {
              description: '1 to 64 letters, digits, underscores and hyphens',
            },
            '/properties/response_format': { description: 'text, json_object or json_schema', discriminator: { propertyName: 'type' } },
            '/properties/response_format/oneOf/2': {
              description: 'a json_schema format takes type and json_schema (name, description, schema, strict)',
            },
            '/properties/response_format/oneOf/2/properties/json_schema/properties/name': {
              description: '1 to 64 letters, digits, underscores and hyphens',
            },
            '/properties/response_format/oneOf/2/properties/json_schema/properties/strict': { description: 'boolean, or null' },
            '/properties/n': { description: 'only 1 is supported by this gateway yet' },
            '/properties/presence_penalty': { description: 'only 0 (no penalty) is supported by this gateway yet' },
            '/properties/frequency_penalty': { description: 'only 0 (no penalty) is supported by this gateway yet' },
            '/properties/store': { description: 'accepted and changes nothing: the gateway stores no completion, or null' },
            '/properties/store/anyOf/0': { description: 'accepted and changes nothing: the gateway stores no completion' },
            '/properties/service_tier': { description: 'auto, default (Standard), flex or priority, or null' },
            '/properties/service_tier/anyOf/0': {
              description: 'auto, default (Standard), flex or priority: the processing tier, where the model offers it',
            },
            '/properties/functions': { description: 'not supported by this gateway yet' },
            '/properties/function_call': { description: 'not supported by this gateway yet' },
            '/properties/logprobs': { description: 'not supported by this gateway yet' },
            '/properties/top_logprobs': { description: 'not supported by this gateway yet' },
            '/properties/logit_bias': { description: 'not supported by this gateway yet' },
            '/properties/audio': { description: 'not supported by this gateway yet' },
            '/properties/modalities': { description: 'not supported by this gateway yet' },
            '/properties/prediction': { description: 'not supported by this gateway yet' },
            '/properties/reasoning_effort': { description: 'none, minimal, low, medium, high or xhigh, or null' },
            '/properties/reasoning_effort/anyOf/0': {
              description: 'none, minimal, low, medium, high or xhigh: how much the model reasons, where it reasons',
            },
            '/properties/verbosity': { description: 'not supported by this gateway yet' },
            '/properties/web_search_options': { description: 'not supported by this gateway yet' },
            '/properties/metadata': { description: 'not supported by this gateway yet' },
            '/properties/prompt_cache_key': { description: 'not supported by this gateway yet' },
            '/properties/safety_identifier': { description: 'not supported by this gateway yet' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: "OpenAI's chat.completion object, or with `stream` its server-sent events.",
        headers: answerHeaders(
          'This call\'s exact cost in USD, unrounded, with up to 9 decimals ("0.0000001"; 0 on dedicated endpoints, which are paid by the hour). Not on streams.',
        ),
        content: {
          'application/json': { schema: Ref(ChatCompletion) },
          'text/event-stream': {
            schema: Type.String({
              description: `Server-sent events, each \`data: <chat.completion.chunk JSON>\` and a blank line:
\`{id, object: "chat.completion.chunk", created, model, system_fingerprint: null,
choices: [{index: 0, delta: {role?, content?}, logprobs: null, finish_reason}]}\`;
with \`include_usage\`, a last chunk \`{..., choices: [], usage: {prompt_tokens,
completion_tokens, total_tokens, cost_usd}}\`; then \`data: [DONE]\`. A failure
mid-stream is \`data: {"error": {message, type, code, param}}\` instead of the rest.
`,
            }),
            example: `data: {"id":"chatcmpl-1f0c","object":"chat.completion.chunk","created":1767225600,"model":"my-haiku","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-1f0c","object":"chat.completion.chunk","created":1767225600,"model":"my-haiku","system_fingerprint":null,"choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-1f0c","object":"chat.completion.chunk","created":1767225600,"model":"my-haiku","system_fingerprint":null,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-1f0c","object":"chat.completion.chunk","created":1767225600,"model":"my-haiku","system_fingerprint":null,"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13,"cost_usd":0.000004}}

data: [DONE]

`,
          },
        },
      },
      ...errors('openai', 400, 401, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },

  /** POST /v1/embeddings */
  embeddings: {
    tags: ['gateway'],
    summary: "Embeddings of texts on a deployed embedding model (OpenAI's Embeddings API)",
    description: `API key only. \`input\` is a text or an array of up to 2048 texts; \`dimensions\` passes through
to models that offer several sizes (Titan v2: 256, 512, 1024); \`encoding_format\` is float or
base64 (float32, little-endian). Managed: Titan Text Embeddings v2 and Cohere Embed through
InvokeModel; hosted: passed through; dedicated: a Text Embeddings Inference container. Metered
like a chat completion: the input tokens' bound reserved on the budgets before the platform is
asked, held with the rate limits' request and token bound in the same write (budgets and
rate limits of every level, as for a chat completion: 429 \`budget_exceeded\` or
\`rate_limit_exceeded\`, and the x-ratelimit-* headers), the call priced per input token
(\`x-model-ops-cost-usd\`), counted by key, user, team and model. A model the key or its owner
may not use is a 404 \`model_not_found\`. A chat model is a 400 with \`param: model\`
(\`model_not_capable\`).
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(EmbeddingsBody, 'EmbeddingsRequest', {
            '': { description: "OpenAI's embeddings request. Arrays of token ids are not supported." },
            '/properties/model': { description: "a model id from GET /v1/models (a resource's endpoint name)" },
            '/properties/input': { description: 'a text, or an array of up to 2048 texts; arrays of token ids are not supported' },
            '/properties/input/anyOf/0': { description: 'a text of 1 to 50000 characters; arrays of token ids are not supported' },
            '/properties/input/anyOf/1/items': { description: 'a text of 1 to 50000 characters; arrays of token ids are not supported' },
            '/properties/dimensions': { description: "the vectors' size, for models that offer several" },
            '/properties/encoding_format': { description: 'float or base64' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: "OpenAI's list of embeddings.",
        headers: answerHeaders('This call\'s exact cost in USD, unrounded, with up to 9 decimals ("0.0000001").'),
        content: { 'application/json': { schema: Ref(Embeddings) } },
      },
      ...errors('openai', 400, 401, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },

  /** POST /v1/responses */
  responses: {
    tags: ['gateway'],
    summary: "A model response (OpenAI's Responses API), stored for continuation unless `store` is false",
    description: `API key only. \`input\` as a string or as message, \`function_call\` and
\`function_call_output\` items; \`instructions\`, \`max_output_tokens\`, \`temperature\`, \`top_p\`;
function \`tools\`, \`tool_choice\`, \`parallel_tool_calls\`; \`text.format\` json_object or
json_schema. \`store\` (default true, as OpenAI's) keeps the response and the conversation it
ended for RESPONSES_TTL_DAYS (default 30) under this key: \`GET /v1/responses/{id}\` reads it
and \`previous_response_id\` continues it (the stored turns, then this input; \`instructions\`
are not carried over). An id this key did not store (another key's, deleted or expired) is a
400 \`previous_response_not_found\`. \`conversation\` and \`item_reference\` items are a 400 that
says what to send instead (with the Vercel AI SDK, \`providerOptions: { openai: { store:
false } }\` or \`previousResponseId\`). Revoking the key deletes its stored responses. Metered like a chat completion: the access
check (404 \`model_not_found\`), every budget and rate limit held in one write (429
\`budget_exceeded\` or \`rate_limit_exceeded\`), the x-ratelimit-* headers.

\`stream: true\` answers the Responses events (\`event:\` and \`data:\` lines, each with its
\`sequence_number\`): response.created, response.in_progress, response.output_item.added,
response.content_part.added, response.output_text.delta…, response.output_text.done,
response.content_part.done, response.function_call_arguments.delta…,
response.function_call_arguments.done, response.output_item.done, and last
response.completed (or response.incomplete) with the whole response and its \`usage\`, which
also carries \`cost_usd\`. A failure mid-stream ends with response.failed.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(ResponsesBody, 'ResponsesRequest', {
            '': {
              description:
                "OpenAI's Responses API request: `store` (default true) keeps the response for GET and `previous_response_id`; `conversation` and `item_reference` items are refused.",
            },
            '/properties/model': { description: "a model id from GET /v1/models (a resource's endpoint name)" },
            '/properties/input': { description: 'text, or an array of input items' },
            '/properties/input/anyOf/1/items': {
              description: 'message (the default), function_call or function_call_output; other item types are not supported',
            },
            '/properties/input/anyOf/1/items/then': { description: 'a function_call item takes type, call_id, name, arguments, id and status' },
            '/properties/input/anyOf/1/items/then/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/input/anyOf/1/items/then/properties/arguments': { description: 'the arguments as JSON text' },
            '/properties/input/anyOf/1/items/else/then': { description: 'a function_call_output item takes type, call_id, output, id and status' },
            '/properties/input/anyOf/1/items/else/then/properties/output': { description: 'text, or an array of input_text and input_image parts' },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items': {
              description: 'input_text or input_image',
              discriminator: { propertyName: 'type' },
            },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items/oneOf/0': {
              description: 'an input_text part takes type and text',
            },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items/oneOf/1': {
              description: 'an input_image part takes type, image_url (a data: URL) and detail',
            },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items/oneOf/1/properties/image_url': {
              description:
                'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched, or null',
            },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items/oneOf/1/properties/image_url/anyOf/0': {
              description: 'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched',
            },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items/oneOf/1/properties/file_id': {
              description: 'string, or null',
            },
            '/properties/input/anyOf/1/items/else/then/properties/output/anyOf/1/items/oneOf/1/properties/detail': {
              description: 'undefined, or null',
            },
            '/properties/input/anyOf/1/items/else/then/properties/id': { description: 'string, or null' },
            '/properties/input/anyOf/1/items/else/then/properties/status': { description: 'undefined, or null' },
            '/properties/input/anyOf/1/items/else/else/then': { description: 'an item_reference takes type and id' },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/0/properties/type': {
              description: 'message (the default), function_call or function_call_output; other item types are not supported',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1': {
              description: 'a message takes type, role, content, id, status and phase',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/role': { description: 'user, assistant, system or developer' },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content': { description: 'text, or an array of parts' },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items': {
              description: 'input_text, input_image, output_text or refusal; audio and file parts are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/0': {
              description: 'an input_text part takes type and text',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/1': {
              description: 'an input_image part takes type, image_url (a data: URL) and detail',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/1/properties/image_url': {
              description:
                'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched, or null',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/1/properties/image_url/anyOf/0': {
              description: 'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/1/properties/file_id': {
              description: 'string, or null',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/1/properties/detail': {
              description: 'undefined, or null',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/2': {
              description: 'an output_text part takes type, text, annotations and logprobs',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/content/anyOf/1/items/oneOf/3': {
              description: 'a refusal part takes type and refusal',
            },
            '/properties/input/anyOf/1/items/else/else/else/then/allOf/1/properties/phase': { description: 'undefined, or null' },
            '/properties/input/anyOf/1/items/else/else/else/else': { description: 'a message takes type, role, content, id, status and phase' },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/role': { description: 'user, assistant, system or developer' },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content': { description: 'text, or an array of parts' },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items': {
              description: 'input_text, input_image, output_text or refusal; audio and file parts are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/0': {
              description: 'an input_text part takes type and text',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/1': {
              description: 'an input_image part takes type, image_url (a data: URL) and detail',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/1/properties/image_url': {
              description:
                'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched, or null',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/1/properties/image_url/anyOf/0': {
              description: 'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/1/properties/file_id': {
              description: 'string, or null',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/1/properties/detail': {
              description: 'undefined, or null',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/2': {
              description: 'an output_text part takes type, text, annotations and logprobs',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/content/anyOf/1/items/oneOf/3': {
              description: 'a refusal part takes type and refusal',
            },
            '/properties/input/anyOf/1/items/else/else/else/else/properties/phase': { description: 'undefined, or null' },
            '/properties/instructions': { description: 'string, or null' },
            '/properties/max_output_tokens': { description: 'integer, or null' },
            '/properties/temperature': { description: 'number, or null' },
            '/properties/top_p': { description: 'number, or null' },
            '/properties/tools/items': {
              description: 'function: the only kind of tool; built-in tools such as web_search or file_search are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/tools/items/oneOf/0/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/tools/items/oneOf/0/properties/description': { description: 'string, or null' },
            '/properties/tools/items/oneOf/0/properties/parameters': { description: 'object, or null' },
            '/properties/tools/items/oneOf/0/properties/strict': { description: 'boolean, or null' },
            '/properties/tool_choice': { description: 'none, auto, required, or {"type": "function", "name": …}' },
            '/properties/tool_choice/anyOf/3/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/parallel_tool_calls': { description: 'boolean, or null' },
            '/properties/text/properties/format': { description: 'text, json_object or json_schema', discriminator: { propertyName: 'type' } },
            '/properties/text/properties/format/oneOf/2': { description: 'a json_schema format takes type, name, schema, description and strict' },
            '/properties/text/properties/format/oneOf/2/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/text/properties/format/oneOf/2/properties/strict': { description: 'boolean, or null' },
            '/properties/text/properties/verbosity': { description: 'not supported by this gateway yet' },
            '/properties/stream': { description: 'boolean, or null' },
            '/properties/stream_options': { description: 'object, or null' },
            '/properties/store': { description: 'keep the response (RESPONSES_TTL_DAYS) for GET and previous_response_id; default true, or null' },
            '/properties/store/anyOf/0': { description: 'keep the response (RESPONSES_TTL_DAYS) for GET and previous_response_id; default true' },
            '/properties/previous_response_id': {
              description: 'continues the conversation of a response this key stored (400 previous_response_not_found if none), or null',
            },
            '/properties/previous_response_id/anyOf/0': {
              description: 'continues the conversation of a response this key stored (400 previous_response_not_found if none)',
            },
            '/properties/conversation': { description: 'refused: continue with previous_response_id, or null' },
            '/properties/conversation/anyOf/0': { description: 'refused: continue with previous_response_id' },
            '/properties/metadata': { description: 'object, or null' },
            '/properties/include': { description: 'accepted; nothing the service produces is includable, or null' },
            '/properties/include/anyOf/0': { description: 'accepted; nothing the service produces is includable' },
            '/properties/truncation': { description: 'disabled; auto truncation is not supported, or null' },
            '/properties/truncation/anyOf/0': { description: 'disabled; auto truncation is not supported' },
            '/properties/service_tier': { description: 'auto, default (Standard), flex or priority, or null' },
            '/properties/service_tier/anyOf/0': {
              description: 'auto, default (Standard), flex or priority: the processing tier, where the model offers it',
            },
            '/properties/background': { description: 'not supported by this gateway yet' },
            '/properties/reasoning': { description: 'effort (none to xhigh) and summary (accepted: the reasoning comes back whole), or null' },
            '/properties/reasoning/anyOf/0': { description: 'effort (none to xhigh) and summary (accepted: the reasoning comes back whole)' },
            '/properties/reasoning/anyOf/0/properties/effort': { description: 'none, minimal, low, medium, high or xhigh, or null' },
            '/properties/reasoning/anyOf/0/properties/effort/anyOf/0': {
              description: 'none, minimal, low, medium, high or xhigh: how much the model reasons, where it reasons',
            },
            '/properties/prompt': { description: 'not supported by this gateway yet' },
            '/properties/max_tool_calls': { description: 'not supported by this gateway yet' },
            '/properties/top_logprobs': { description: 'not supported by this gateway yet' },
            '/properties/prompt_cache_key': { description: 'not supported by this gateway yet' },
            '/properties/prompt_cache_retention': { description: 'not supported by this gateway yet' },
            '/properties/safety_identifier': { description: 'not supported by this gateway yet' },
            '/properties/context_management': { description: 'not supported by this gateway yet' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The response object, or with `stream` its server-sent events.',
        headers: answerHeaders(
          'This call\'s exact cost in USD, unrounded, with up to 9 decimals ("0.0000001"). Not on streams, whose last event carries it.',
        ),
        content: { 'application/json': { schema: Ref(ResponseSchema) }, 'text/event-stream': { schema: Type.String() } },
      },
      ...errors('openai', 400, 401, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },

  /** GET /v1/responses/{id} */
  getResponse: {
    tags: ['gateway'],
    summary: "A stored response (OpenAI's Responses API)",
    description: `API key only. A response this key stored (POST /v1/responses with \`store\`, the default), as
it was answered. Another key's response, the same owner's too, is 404 as an unknown id is
(OpenAI's shape: "Response with id '…' not found."), and so is one deleted or past
RESPONSES_TTL_DAYS.
`,
    parameters: new Parameters({ path: ResponsePath }, [{ name: 'id', in: 'path', schema: { description: 'resp_…' } }]),
    responses: {
      '200': { description: 'The response object, as answered.', content: { 'application/json': { schema: Ref(ResponseSchema) } } },
      ...errors('openai', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** DELETE /v1/responses/{id} */
  deleteResponse: {
    tags: ['gateway'],
    summary: "Deletes a stored response (OpenAI's Responses API)",
    description: `API key only. Deletes a response this key stored; it can no longer be read or continued.
Another key's response, or one already deleted or expired, is 404.
`,
    parameters: new Parameters({ path: ResponsePath }, [{ name: 'id', in: 'path', schema: { description: 'resp_…' } }]),
    responses: {
      '200': {
        description: "OpenAI's deletion answer.",
        content: {
          'application/json': {
            schema: Type.Object({
              id: Type.String(),
              object: Type.Unsafe<'response'>({ const: 'response' }),
              deleted: Type.Unsafe<true>({ const: true }),
            }),
          },
        },
      },
      ...errors('openai', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** POST /v1/messages */
  messages: {
    tags: ['gateway'],
    summary: "A message (Anthropic's Messages API)",
    description: `The API key in \`x-api-key\` (as Anthropic's clients send it) or as a bearer token;
\`anthropic-version\` is accepted whatever it says. \`system\`, messages with text, image
(base64), \`tool_use\`, \`tool_result\`, \`thinking\` and \`redacted_thinking\` blocks, \`tools\` and
\`tool_choice\`, \`max_tokens\` (required), \`stop_sequences\`, \`temperature\`, \`top_p\`, \`top_k\`
(where the model takes it). \`thinking\` (\`enabled\` with \`budget_tokens\`, or \`adaptive\` where
the model has it) turns on the model's reasoning: the answer starts with \`thinking\` blocks
(text and signature) or \`redacted_thinking\`, which a later turn sends back unchanged; a model
that does not reason answers 400. The budget hold counts \`budget_tokens\` on top of
\`max_tokens\`. \`anthropic-beta\`: the betas the model takes on Bedrock (interleaved thinking,
fine-grained tool streaming, …) are passed on; the others are dropped and named in
\`x-model-ops-betas-dropped\`. See docs/claude-code.md. Errors are in Anthropic's shape
(\`{"type": "error", "error": {"type", "message"}}\`). Metered like a chat completion: a model
the key or its owner may not use is a 404 (\`not_found_error\`), a budget or rate limit that
cannot take the call a 429 (\`rate_limit_error\`, with \`Retry-After\` for a rate limit), and
every answer carries the x-ratelimit-* headers of a caller with a limit.

\`stream: true\` answers Anthropic's events: message_start, ping, content_block_start,
content_block_delta (thinking_delta, signature_delta, text_delta, input_json_delta), content_block_stop, message_delta (the
stop reason and the usage, which also carries \`cost_usd\`), message_stop; a failure mid-stream
is an \`error\` event.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(MessagesBody, 'MessagesRequest', {
            '': { description: "Anthropic's Messages API request." },
            '/properties/model': { description: "a model id from GET /v1/models (a resource's endpoint name)" },
            '/properties/messages/items': { description: 'user, assistant or system', discriminator: { propertyName: 'role' } },
            '/properties/messages/items/oneOf/0': { description: 'a user message takes role and content' },
            '/properties/messages/items/oneOf/0/properties/content': { description: 'text, or an array of content blocks' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items': {
              description: 'text, image or tool_result; documents, search results and server tool blocks are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/0': {
              description: 'a text block takes type, text, cache_control and citations',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/0/properties/cache_control': {
              description: 'object, or null',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/0/properties/citations': { description: 'array, or null' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1': {
              description: 'an image block takes type, source and cache_control',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/source': {
              description: 'base64; url and file sources are refused',
              discriminator: { propertyName: 'type' },
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/0': {
              description: 'a base64 source takes type, media_type and data',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/0/properties/media_type': {
              description: 'image/jpeg, image/png, image/gif or image/webp',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/0/properties/data': {
              description: 'base64 of at most 3.75 MB',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/1': {
              description: 'a url source takes type and url',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/2': {
              description: 'a file source takes type and file_id',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/1/properties/cache_control': {
              description: 'object, or null',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2': {
              description: 'a tool_result block takes type, tool_use_id, content, is_error and cache_control',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content': {
              description: 'text, or an array of text and image blocks',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items': {
              description: 'text or image',
              discriminator: { propertyName: 'type' },
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/0': {
              description: 'a text block takes type, text, cache_control and citations',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/0/properties/cache_control':
              { description: 'object, or null' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/0/properties/citations':
              { description: 'array, or null' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1': {
              description: 'an image block takes type, source and cache_control',
            },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/source':
              { description: 'base64; url and file sources are refused', discriminator: { propertyName: 'type' } },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/0':
              { description: 'a base64 source takes type, media_type and data' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/0/properties/media_type':
              { description: 'image/jpeg, image/png, image/gif or image/webp' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/0/properties/data':
              { description: 'base64 of at most 3.75 MB' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/1':
              { description: 'a url source takes type and url' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/source/oneOf/2':
              { description: 'a file source takes type and file_id' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/content/anyOf/1/items/oneOf/1/properties/cache_control':
              { description: 'object, or null' },
            '/properties/messages/items/oneOf/0/properties/content/anyOf/1/items/oneOf/2/properties/cache_control': {
              description: 'object, or null',
            },
            '/properties/messages/items/oneOf/1': { description: 'an assistant message takes role and content' },
            '/properties/messages/items/oneOf/1/properties/content': { description: 'text, or an array of content blocks' },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items': {
              description: 'text, tool_use, thinking or redacted_thinking; server tool blocks are not supported',
              discriminator: { propertyName: 'type' },
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/0': {
              description: 'a text block takes type, text, cache_control and citations',
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/0/properties/cache_control': {
              description: 'object, or null',
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/0/properties/citations': { description: 'array, or null' },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/1': {
              description: 'a tool_use block takes type, id, name, input, cache_control and caller',
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/1/properties/name': {
              description: '1 to 64 letters, digits, underscores and hyphens',
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/1/properties/cache_control': {
              description: 'object, or null',
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/2': {
              description: 'a thinking block takes type, thinking and signature',
            },
            '/properties/messages/items/oneOf/1/properties/content/anyOf/1/items/oneOf/3': {
              description: 'a redacted_thinking block takes type and data',
            },
            '/properties/messages/items/oneOf/2': { description: 'a system message takes role and content' },
            '/properties/messages/items/oneOf/2/properties/content': { description: 'text, or text blocks' },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items': {
              description: 'a text block takes type, text, cache_control and citations',
            },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/properties/cache_control': { description: 'object, or null' },
            '/properties/messages/items/oneOf/2/properties/content/anyOf/1/items/properties/citations': { description: 'array, or null' },
            '/properties/system': { description: 'text, or text blocks' },
            '/properties/system/anyOf/1/items': { description: 'a text block takes type, text, cache_control and citations' },
            '/properties/system/anyOf/1/items/properties/cache_control': { description: 'object, or null' },
            '/properties/system/anyOf/1/items/properties/citations': { description: 'array, or null' },
            '/properties/tools/items': { description: 'custom; server tools such as web_search, bash or code_execution are not supported' },
            '/properties/tools/items/then/allOf/0/properties/type': {
              description: 'custom; server tools such as web_search, bash or code_execution are not supported',
            },
            '/properties/tools/items/then/allOf/1': { description: 'a tool takes type, name, description, input_schema, strict and cache_control' },
            '/properties/tools/items/then/allOf/1/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/tools/items/then/allOf/1/properties/cache_control': { description: 'object, or null' },
            '/properties/tools/items/else': { description: 'a tool takes type, name, description, input_schema, strict and cache_control' },
            '/properties/tools/items/else/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/tools/items/else/properties/cache_control': { description: 'object, or null' },
            '/properties/tool_choice': { description: 'auto, any, tool or none', discriminator: { propertyName: 'type' } },
            '/properties/tool_choice/oneOf/2/properties/name': { description: '1 to 64 letters, digits, underscores and hyphens' },
            '/properties/metadata/properties/user_id': { description: 'string, or null' },
            '/properties/thinking': {
              description: 'enabled (budget_tokens of at least 1024), disabled, or adaptive where the model has it',
              discriminator: { propertyName: 'type' },
            },
            '/properties/thinking/oneOf/0/properties/display': { description: 'undefined, or null' },
            '/properties/thinking/oneOf/2/properties/display': { description: 'undefined, or null' },
            '/properties/output_config/properties/format': { description: 'object, or null' },
            '/properties/output_config/properties/effort': { description: 'undefined, or null' },
            '/properties/cache_control': { description: 'object, or null' },
            '/properties/top_k': { description: 'sample from the k likeliest tokens (1 to 500), where the model takes it' },
            '/properties/container': { description: 'not supported by this gateway yet' },
            '/properties/mcp_servers': { description: 'not supported by this gateway yet' },
            '/properties/context_management': { description: 'not supported by this gateway yet' },
            '/properties/inference_geo': { description: 'not supported by this gateway yet' },
            '/properties/speed': { description: 'not supported by this gateway yet' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: "Anthropic's message, or with `stream` its server-sent events.",
        headers: answerHeaders(
          'This call\'s exact cost in USD, unrounded, with up to 9 decimals ("0.0000001"). Not on streams, whose last event carries it.',
          {
            'x-model-ops-betas-dropped': {
              description:
                'The betas of `anthropic-beta` that the model does not take on its platform, comma-separated; they were dropped. Absent when none was.',
              schema: Type.String(),
            },
          },
        ),
        content: { 'application/json': { schema: Ref(AnthropicMessage) }, 'text/event-stream': { schema: Type.String() } },
      },
      ...errors('anthropic', 400, 401, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
  /** POST /v1/messages/count_tokens */
  messagesCountTokens: {
    tags: ['gateway'],
    summary: "The input tokens of a message request (Anthropic's token counting)",
    description: `The body of POST /v1/messages without \`max_tokens\` and \`stream\`, read and checked the same
way (the key, the model, \`anthropic-beta\`, thinking, tools, images); the answer is
\`{"input_tokens": N}\`. Free: no budget is held and nothing is recorded as spend. Rate-limited like
any call: it counts as a request in the key's and its teams' requests-per-minute windows, and a
full window answers 429 (\`rate_limit_error\`, \`Retry-After\`). On Bedrock models that have
CountTokens (Claude 3.5 Haiku, 3.5 Sonnet and v2, 3.7 Sonnet, Opus 4, Sonnet 4) the platform counts;
elsewhere the answer is the prompt's bound that a call's budget hold reserves (an upper bound,
never below what the call is billed as input). \`x-model-ops-token-count\` says which
(\`platform\` or \`estimate\`). A route counts with its first target. See docs/claude-code.md.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(MessagesCountTokensBody, 'MessagesCountTokensRequest', {
            '': { description: 'A Messages API request without max_tokens and stream.' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The input tokens.',
        headers: {
          'x-model-ops-token-count': {
            description: '`platform` when the platform counted, `estimate` when the prompt bound was given.',
            schema: Type.String(),
          },
          'x-model-ops-resource': { description: "The resource whose model's tokens were counted.", schema: Type.String() },
          'x-request-id': { description: "The request's id, as the logs know it.", schema: Type.String() },
          'x-ratelimit-limit-requests': { $ref: '#/components/headers/RateLimitLimitRequests' },
          'x-ratelimit-remaining-requests': { $ref: '#/components/headers/RateLimitRemainingRequests' },
          'x-ratelimit-reset-requests': { $ref: '#/components/headers/RateLimitResetRequests' },
        },
        content: { 'application/json': { schema: Ref(MessageTokensCount) } },
      },
      ...errors('anthropic', 400, 401, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
};
