import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_IMAGE_URL_CHARS } from '../../lib/dialects/common';
import { MAX_DOCUMENT_BYTES } from '../../lib/platforms/documents';
import { Discriminated, Tagged } from '../../lib/http/schemas';

const StopWord = Type.String({ minLength: 1, maxLength: 200 });
const Zero = Type.Number({ minimum: 0, maximum: 0, description: 'only 0 (no penalty) is supported by this gateway yet' });

// ---------------------------------------------------------------------------------------------
// The wire dialects' requests (lib/dialects/): OpenAI's chat completions with tools, structured
// output and images, OpenAI's embeddings and Responses API, Anthropic's Messages API. Each is closed
// (an unknown field is a typo and is refused by name), except where real clients send fields of
// their own; the fields of features not offered are declared as accepting nothing, so that they are
// refused as not supported rather than as unknown. Each body type fits its dialect's (lib/dialects),
// so schema and translation cannot drift apart unnoticed (tests/unit/dialect-schemas.test.ts).
// ---------------------------------------------------------------------------------------------

/** A value or null; described as its schema is (or by its type), so that a refusal says what is allowed. */
const Nullable = <T extends TSchema>(schema: T) =>
  Type.Union([schema, Type.Null()], { description: `${schema.description ?? (schema.type as string)}, or null` });
const closed = { additionalProperties: false } as const;
const notSupported = (fields: readonly string[]) => {
  const never = Type.Optional(Type.Never({ description: 'not supported by this gateway yet' }));
  return Object.fromEntries(fields.map((field) => [field, never])) as Record<string, typeof never>;
};

const ModelName = Type.String({ minLength: 1, maxLength: 300, description: "a model id from GET /v1/models (a resource's endpoint name)" });
/** One text of a conversation: as much as a model context holds, and far less than a body may carry. */
const LongText = Type.String({ maxLength: 200_000 });
/** A function's name, as OpenAI, Anthropic and Converse all allow it. */
const ToolName = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: '1 to 64 letters, digits, underscores and hyphens' });
const CallId = Type.String({ minLength: 1, maxLength: 256 });
const ToolArguments = Type.String({ maxLength: 200_000, description: 'the arguments as JSON text' });
const ToolDescription = Type.String({ maxLength: 50_000 });
/** A JSON Schema (of a tool's arguments, of a structured answer), or a tool call's input: any JSON object. */
const JsonObject = Type.Record(Type.String(), Type.Unknown());
const ImageUrl = Type.String({
  minLength: 1,
  maxLength: MAX_IMAGE_URL_CHARS,
  description: 'a data: URL with the base64 bytes of a PNG, JPEG, GIF or WebP image of at most 3.75 MB; http(s) URLs are not fetched',
});
const Temperature = Type.Number({ minimum: 0, maximum: 2 });
const TopP = Type.Number({ minimum: 0, maximum: 1 });
const MaxTokens = Type.Integer({ minimum: 1, maximum: 32_000 });
const Stop = Type.Union([StopWord, Type.Array(StopWord, { maxItems: 4 }), Type.Null()], { description: 'a stop sequence, or up to 4' });
const SchemaName = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: '1 to 64 letters, digits, underscores and hyphens' });
/** A conversation: long enough for agents' tool loops (each call and each result is a message). */
const MAX_MESSAGES = 1000;

/**
 * A prompt-cache checkpoint after the block, part or tool that carries it (Anthropic's cache_control;
 * LiteLLM takes the same field on OpenAI's content parts and tools): `ephemeral`, for 5 minutes
 * unless `ttl` says 1h.
 */
const CacheControl = Type.Optional(
  Nullable(Type.Object({ type: Type.Literal('ephemeral'), ttl: Type.Optional(Type.Union([Type.Literal('5m'), Type.Literal('1h')])) }, closed)),
);

/** OpenAI's service_tier: auto (the caller's default), default (Standard), flex or priority. */
const ServiceTierField = Type.Optional(
  Nullable(
    Type.Union([Type.Literal('auto'), Type.Literal('default'), Type.Literal('flex'), Type.Literal('priority')], {
      description: 'auto, default (Standard), flex or priority: the processing tier, where the model offers it',
    }),
  ),
);

/** OpenAI's reasoning effort, for a model that reasons (none: no reasoning). */
const ReasoningEffort = Type.Optional(
  Nullable(
    Type.Union(
      [Type.Literal('none'), Type.Literal('minimal'), Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('xhigh')],
      { description: 'none, minimal, low, medium, high or xhigh: how much the model reasons, where it reasons' },
    ),
  ),
);

// POST /v1/chat/completions ---------------------------------------------------------------------

const ChatText = Type.Object(
  { type: Type.Literal('text'), text: LongText, cache_control: CacheControl },
  { ...closed, description: 'a text part takes type, text and cache_control' },
);
const ChatImage = Type.Object(
  {
    type: Type.Literal('image_url'),
    image_url: Type.Object(
      { url: ImageUrl, detail: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high')])) },
      closed,
    ),
    cache_control: CacheControl,
  },
  { ...closed, description: 'an image part takes type, image_url (url, detail) and cache_control' },
);
const ChatFile = Type.Object(
  {
    type: Type.Literal('file'),
    file: Type.Object(
      {
        file_data: Type.Optional(
          Type.String({
            maxLength: Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4 + 40,
            description: 'a data: URL with the base64 bytes of a PDF or text of at most 4.5 MB',
          }),
        ),
        filename: Type.Optional(Type.String({ maxLength: 500 })),
        file_id: Type.Optional(Type.String({ maxLength: 256, description: 'refused: this service stores no files' })),
      },
      closed,
    ),
  },
  { ...closed, description: 'a file part takes type and file (file_data, filename)' },
);
const ChatRefusal = Type.Object(
  { type: Type.Literal('refusal'), refusal: LongText },
  { ...closed, description: 'a refusal part takes type and refusal' },
);
const TextParts = Type.Array(ChatText, { minItems: 1, maxItems: 100 });
const TextContent = Type.Union([LongText, TextParts], { description: 'text, or an array of text parts' });
const MessageName = Type.Optional(Type.String({ maxLength: 64 }));

const ChatToolCall = Type.Object(
  {
    id: CallId,
    type: Type.Literal('function'),
    function: Type.Object({ name: ToolName, arguments: ToolArguments }, closed),
  },
  closed,
);

const ChatMessage = Discriminated(
  'role',
  [
    Type.Object(
      { role: Type.Literal('system'), content: TextContent, name: MessageName },
      { ...closed, description: 'a system message takes role, content and name' },
    ),
    Type.Object(
      { role: Type.Literal('developer'), content: TextContent, name: MessageName },
      { ...closed, description: 'a developer message takes role, content and name' },
    ),
    Type.Object(
      {
        role: Type.Literal('user'),
        content: Type.Union(
          [
            LongText,
            Type.Array(
              Discriminated('type', [ChatText, ChatImage, ChatFile], { description: 'text, image_url or file; audio parts are not supported' }),
              {
                minItems: 1,
                maxItems: 100,
              },
            ),
          ],
          { description: 'text, or an array of text, image_url and file parts' },
        ),
        name: MessageName,
      },
      { ...closed, description: 'a user message takes role, content and name' },
    ),
    Type.Object(
      {
        role: Type.Literal('assistant'),
        content: Type.Optional(
          Type.Union(
            [
              LongText,
              Type.Array(Discriminated('type', [ChatText, ChatRefusal], { description: 'text or refusal' }), { maxItems: 100 }),
              Type.Null(),
            ],
            {
              description: 'text, an array of text parts, or null with tool_calls',
            },
          ),
        ),
        tool_calls: Type.Optional(Type.Array(ChatToolCall, { maxItems: 128 })),
        refusal: Type.Optional(Nullable(LongText)),
        name: MessageName,
      },
      { ...closed, description: 'an assistant message takes role, content, tool_calls, refusal and name' },
    ),
    Type.Object(
      { role: Type.Literal('tool'), tool_call_id: CallId, content: TextContent, name: MessageName },
      { ...closed, description: 'a tool message takes role, tool_call_id, content and name' },
    ),
  ],
  { description: 'system, developer, user, assistant or tool; function messages are not supported' },
);

const ChatFunctionTool = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: ToolName,
        description: Type.Optional(ToolDescription),
        parameters: Type.Optional(JsonObject),
        strict: Type.Optional(Nullable(Type.Boolean())),
      },
      closed,
    ),
    cache_control: CacheControl,
  },
  closed,
);

// Discriminated although it has one branch: a tool of another type is refused on its type first.
const ChatTool = Discriminated('type', [ChatFunctionTool], { description: 'function: the only kind of tool; built-in tools are not supported' });

const ChatToolChoice = Type.Union(
  [
    Type.Literal('auto'),
    Type.Literal('none'),
    Type.Literal('required'),
    Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: ToolName }, closed) }, closed),
  ],
  { description: 'auto, none, required, or {"type": "function", "function": {"name": …}}' },
);

/** The two answer formats OpenAI's APIs share: plain text, and any JSON object. */
const PlainText = Type.Object({ type: Type.Literal('text') }, closed);
const AnyJson = Type.Object({ type: Type.Literal('json_object') }, closed);

const ChatResponseFormat = Discriminated(
  'type',
  [
    PlainText,
    AnyJson,
    Type.Object(
      {
        type: Type.Literal('json_schema'),
        json_schema: Type.Object(
          { name: SchemaName, description: Type.Optional(ToolDescription), schema: JsonObject, strict: Type.Optional(Nullable(Type.Boolean())) },
          closed,
        ),
      },
      { ...closed, description: 'a json_schema format takes type and json_schema (name, description, schema, strict)' },
    ),
  ],
  { description: 'text, json_object or json_schema' },
);

/**
 * POST /v1/chat/completions: OpenAI's request, the part of it this gateway serves (lib/dialects/openai-chat.ts):
 * tools, structured output and images. Fields a client sends for features it does not have (n > 1,
 * logprobs, audio) are refused by name rather than silently ignored; a few that change nothing here
 * (user, seed, penalties at 0) are accepted.
 */
export const ChatCompletionBody = Type.Object(
  {
    model: ModelName,
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: MAX_MESSAGES }),
    max_tokens: Type.Optional(MaxTokens),
    max_completion_tokens: Type.Optional(MaxTokens),
    temperature: Type.Optional(Temperature),
    top_p: Type.Optional(TopP),
    stop: Type.Optional(Stop),
    stream: Type.Optional(Type.Boolean()),
    stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, closed))),
    tools: Type.Optional(Type.Array(ChatTool, { maxItems: 128 })),
    tool_choice: Type.Optional(ChatToolChoice),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    response_format: Type.Optional(ChatResponseFormat),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1, description: 'only 1 is supported by this gateway yet' })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    seed: Type.Optional(Type.Integer()),
    presence_penalty: Type.Optional(Zero),
    frequency_penalty: Type.Optional(Zero),
    store: Type.Optional(Nullable(Type.Boolean({ description: 'accepted and changes nothing: the gateway stores no completion' }))),
    service_tier: ServiceTierField,
    reasoning_effort: ReasoningEffort,
    ...notSupported([
      'functions',
      'function_call',
      'logprobs',
      'top_logprobs',
      'logit_bias',
      'audio',
      'modalities',
      'prediction',
      'verbosity',
      'web_search_options',
      'metadata',
      'prompt_cache_key',
      'safety_identifier',
    ]),
  },
  closed,
);

// POST /v1/embeddings ---------------------------------------------------------------------------

const EmbeddingText = Type.String({
  minLength: 1,
  maxLength: 50_000,
  description: 'a text of 1 to 50000 characters; arrays of token ids are not supported',
});

export const EmbeddingsBody = Type.Object(
  {
    model: ModelName,
    input: Type.Union([EmbeddingText, Type.Array(EmbeddingText, { minItems: 1, maxItems: 2048 })], {
      description: 'a text, or an array of up to 2048 texts; arrays of token ids are not supported',
    }),
    dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 8192, description: "the vectors' size, for models that offer several" })),
    encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')], { description: 'float or base64' })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
  },
  closed,
);

// POST /v1/responses ----------------------------------------------------------------------------

const ItemStatus = Type.Union([Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('incomplete')]);
const InputText = Type.Object(
  { type: Type.Literal('input_text'), text: LongText },
  { ...closed, description: 'an input_text part takes type and text' },
);
const InputImage = Type.Object(
  {
    type: Type.Literal('input_image'),
    image_url: Type.Optional(Nullable(ImageUrl)),
    file_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    detail: Type.Optional(Nullable(Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high'), Type.Literal('original')]))),
  },
  { ...closed, description: 'an input_image part takes type, image_url (a data: URL) and detail' },
);
/** An earlier answer's part, as the API wrote it (annotations and logprobs are never used). */
const OutputText = Type.Object(
  {
    type: Type.Literal('output_text'),
    text: LongText,
    annotations: Type.Optional(Type.Array(JsonObject, { maxItems: 1000 })),
    logprobs: Type.Optional(Type.Array(JsonObject, { maxItems: 100_000 })),
  },
  { ...closed, description: 'an output_text part takes type, text, annotations and logprobs' },
);
const OutputRefusal = Type.Object(
  { type: Type.Literal('refusal'), refusal: LongText },
  { ...closed, description: 'a refusal part takes type and refusal' },
);

const MessageItem = Type.Object(
  {
    type: Type.Optional(Type.Literal('message')),
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system'), Type.Literal('developer')], {
      description: 'user, assistant, system or developer',
    }),
    content: Type.Union(
      [
        LongText,
        Type.Array(
          Discriminated('type', [InputText, InputImage, OutputText, OutputRefusal], {
            description: 'input_text, input_image, output_text or refusal; audio and file parts are not supported',
          }),
          { maxItems: 100 },
        ),
      ],
      { description: 'text, or an array of parts' },
    ),
    id: Type.Optional(Type.String({ maxLength: 256 })),
    status: Type.Optional(ItemStatus),
    phase: Type.Optional(Nullable(Type.Union([Type.Literal('commentary'), Type.Literal('final_answer')]))),
  },
  { ...closed, description: 'a message takes type, role, content, id, status and phase' },
);

const FunctionCallItem = Type.Object(
  {
    type: Type.Literal('function_call'),
    call_id: CallId,
    name: ToolName,
    arguments: ToolArguments,
    id: Type.Optional(Type.String({ maxLength: 256 })),
    status: Type.Optional(ItemStatus),
  },
  { ...closed, description: 'a function_call item takes type, call_id, name, arguments, id and status' },
);

const FunctionCallOutputItem = Type.Object(
  {
    type: Type.Literal('function_call_output'),
    call_id: CallId,
    output: Type.Union(
      [LongText, Type.Array(Discriminated('type', [InputText, InputImage], { description: 'input_text or input_image' }), { maxItems: 100 })],
      { description: 'text, or an array of input_text and input_image parts' },
    ),
    id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    status: Type.Optional(Nullable(ItemStatus)),
  },
  { ...closed, description: 'a function_call_output item takes type, call_id, output, id and status' },
);

/** Declared so that its refusal can say why (nothing is stored), not that the type is unknown. */
const ItemReference = Type.Object(
  { type: Type.Literal('item_reference'), id: Type.String({ maxLength: 256 }) },
  { ...closed, description: 'an item_reference takes type and id' },
);

const InputItem = Tagged('type', [FunctionCallItem, FunctionCallOutputItem, ItemReference], MessageItem, {
  description: 'message (the default), function_call or function_call_output; other item types are not supported',
});

const ResponsesFunctionTool = Type.Object(
  {
    type: Type.Literal('function'),
    name: ToolName,
    description: Type.Optional(Nullable(ToolDescription)),
    parameters: Type.Optional(Nullable(JsonObject)),
    strict: Type.Optional(Nullable(Type.Boolean())),
  },
  closed,
);

const ResponsesTool = Discriminated('type', [ResponsesFunctionTool], {
  description: 'function: the only kind of tool; built-in tools such as web_search or file_search are not supported',
});

const ResponsesToolChoice = Type.Union(
  [Type.Literal('none'), Type.Literal('auto'), Type.Literal('required'), Type.Object({ type: Type.Literal('function'), name: ToolName }, closed)],
  { description: 'none, auto, required, or {"type": "function", "name": …}' },
);

const TextFormat = Discriminated(
  'type',
  [
    PlainText,
    AnyJson,
    Type.Object(
      {
        type: Type.Literal('json_schema'),
        name: SchemaName,
        schema: JsonObject,
        description: Type.Optional(ToolDescription),
        strict: Type.Optional(Nullable(Type.Boolean())),
      },
      { ...closed, description: 'a json_schema format takes type, name, schema, description and strict' },
    ),
  ],
  { description: 'text, json_object or json_schema' },
);

/**
 * POST /v1/responses (lib/dialects/openai-responses.ts, lib/gateway/responses.ts). `store` (default
 * true) keeps the response for GET and `previous_response_id`; `conversation` is accepted by this
 * check so that the dialect can refuse it saying what to send instead.
 */
export const ResponsesBody = Type.Object(
  {
    model: ModelName,
    input: Type.Union([LongText, Type.Array(InputItem, { minItems: 1, maxItems: MAX_MESSAGES })], {
      description: 'text, or an array of input items',
    }),
    instructions: Type.Optional(Nullable(LongText)),
    max_output_tokens: Type.Optional(Nullable(MaxTokens)),
    temperature: Type.Optional(Nullable(Temperature)),
    top_p: Type.Optional(Nullable(TopP)),
    tools: Type.Optional(Type.Array(ResponsesTool, { maxItems: 128 })),
    tool_choice: Type.Optional(ResponsesToolChoice),
    parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
    text: Type.Optional(Type.Object({ format: Type.Optional(TextFormat), ...notSupported(['verbosity']) }, closed)),
    stream: Type.Optional(Nullable(Type.Boolean())),
    stream_options: Type.Optional(Nullable(Type.Object({ include_obfuscation: Type.Optional(Type.Boolean()) }, closed))),
    store: Type.Optional(
      Nullable(Type.Boolean({ description: 'keep the response (RESPONSES_TTL_DAYS) for GET and previous_response_id; default true' })),
    ),
    previous_response_id: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 256,
          description: 'continues the conversation of a response this key stored (400 previous_response_not_found if none)',
        }),
      ),
    ),
    conversation: Type.Optional(
      Nullable(
        Type.Union([Type.String({ maxLength: 256 }), Type.Object({ id: Type.String({ maxLength: 256 }) }, closed)], {
          description: 'refused: continue with previous_response_id',
        }),
      ),
    ),
    metadata: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 }))),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    include: Type.Optional(
      Nullable(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20, description: 'accepted; nothing the service produces is includable' })),
    ),
    truncation: Type.Optional(Nullable(Type.Literal('disabled', { description: 'disabled; auto truncation is not supported' }))),
    service_tier: ServiceTierField,
    reasoning: Type.Optional(
      Nullable(
        Type.Object(
          {
            effort: ReasoningEffort,
            summary: Type.Optional(Nullable(Type.Union([Type.Literal('auto'), Type.Literal('concise'), Type.Literal('detailed')]))),
          },
          { ...closed, description: 'effort (none to xhigh) and summary (accepted: the reasoning comes back whole)' },
        ),
      ),
    ),
    ...notSupported([
      'background',
      'prompt',
      'max_tool_calls',
      'top_logprobs',
      'prompt_cache_key',
      'prompt_cache_retention',
      'safety_identifier',
      'context_management',
    ]),
  },
  closed,
);

/** GET and DELETE /v1/responses/{id}: a stored response's id, as the Responses API writes it. */
export const ResponsePath = Type.Object({ id: Type.String({ minLength: 1, maxLength: 256, description: 'resp_…' }) }, closed);

// POST /v1/messages (Anthropic) -----------------------------------------------------------------

const AnthropicText = Type.Object(
  {
    type: Type.Literal('text'),
    text: LongText,
    cache_control: CacheControl,
    citations: Type.Optional(Nullable(Type.Array(JsonObject, { maxItems: 1000 }))),
  },
  { ...closed, description: 'a text block takes type, text, cache_control and citations' },
);
const ImageMediaType = Type.Union([Type.Literal('image/jpeg'), Type.Literal('image/png'), Type.Literal('image/gif'), Type.Literal('image/webp')], {
  description: 'image/jpeg, image/png, image/gif or image/webp',
});
/** Sources of an image or a document that is elsewhere: declared so that their refusals can say why (nothing is fetched or stored). */
const FetchedSources = [
  Type.Object({ type: Type.Literal('url'), url: Type.String({ maxLength: 2048 }) }, { ...closed, description: 'a url source takes type and url' }),
  Type.Object(
    { type: Type.Literal('file'), file_id: Type.String({ maxLength: 256 }) },
    { ...closed, description: 'a file source takes type and file_id' },
  ),
];
const AnthropicImage = Type.Object(
  {
    type: Type.Literal('image'),
    source: Discriminated(
      'type',
      [
        Type.Object(
          {
            type: Type.Literal('base64'),
            media_type: ImageMediaType,
            data: Type.String({ maxLength: MAX_IMAGE_URL_CHARS, description: 'base64 of at most 3.75 MB' }),
          },
          { ...closed, description: 'a base64 source takes type, media_type and data' },
        ),
        ...FetchedSources,
      ],
      { description: 'base64; url and file sources are refused' },
    ),
    cache_control: CacheControl,
  },
  { ...closed, description: 'an image block takes type, source and cache_control' },
);
/** A document's base64 text at most: MAX_DOCUMENT_BYTES (4.5 MB) encoded. */
export const DocumentData = Type.String({ maxLength: Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4, description: 'base64 of at most 4.5 MB' });
const AnthropicDocument = Type.Object(
  {
    type: Type.Literal('document'),
    source: Discriminated(
      'type',
      [
        Type.Object(
          {
            type: Type.Literal('base64'),
            media_type: Type.Union([Type.Literal('application/pdf'), Type.Literal('text/plain')], { description: 'application/pdf or text/plain' }),
            data: DocumentData,
          },
          { ...closed, description: 'a base64 source takes type, media_type and data' },
        ),
        Type.Object(
          { type: Type.Literal('text'), media_type: Type.Literal('text/plain'), data: Type.String({ maxLength: MAX_DOCUMENT_BYTES }) },
          { ...closed, description: 'a text source takes type, media_type (text/plain) and data' },
        ),
        ...FetchedSources,
      ],
      { description: 'base64 (a PDF or text) or text; url and file sources are refused; content sources are not supported' },
    ),
    title: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    context: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    citations: Type.Optional(Nullable(Type.Object({ enabled: Type.Optional(Type.Boolean()) }, closed))),
    cache_control: CacheControl,
  },
  { ...closed, description: 'a document block takes type, source, title, context, citations and cache_control' },
);
const ToolUse = Type.Object(
  {
    type: Type.Literal('tool_use'),
    id: CallId,
    name: ToolName,
    input: JsonObject,
    cache_control: CacheControl,
    caller: Type.Optional(Type.Object({ type: Type.Literal('direct') }, closed)),
  },
  { ...closed, description: 'a tool_use block takes type, id, name, input, cache_control and caller' },
);
const ToolResult = Type.Object(
  {
    type: Type.Literal('tool_result'),
    tool_use_id: CallId,
    content: Type.Optional(
      Type.Union(
        [LongText, Type.Array(Discriminated('type', [AnthropicText, AnthropicImage], { description: 'text or image' }), { maxItems: 100 })],
        {
          description: 'text, or an array of text and image blocks',
        },
      ),
    ),
    is_error: Type.Optional(Type.Boolean()),
    cache_control: CacheControl,
  },
  { ...closed, description: 'a tool_result block takes type, tool_use_id, content, is_error and cache_control' },
);
const Thinking = Type.Object(
  { type: Type.Literal('thinking'), thinking: LongText, signature: Type.String({ maxLength: 100_000 }) },
  { ...closed, description: 'a thinking block takes type, thinking and signature' },
);
const RedactedThinking = Type.Object(
  { type: Type.Literal('redacted_thinking'), data: Type.String({ maxLength: 200_000 }) },
  { ...closed, description: 'a redacted_thinking block takes type and data' },
);

const AnthropicMessage = Discriminated(
  'role',
  [
    Type.Object(
      {
        role: Type.Literal('user'),
        content: Type.Union(
          [
            LongText,
            Type.Array(
              Discriminated('type', [AnthropicText, AnthropicImage, AnthropicDocument, ToolResult], {
                description: 'text, image, document or tool_result; search results and server tool blocks are not supported',
              }),
              { minItems: 1, maxItems: 500 },
            ),
          ],
          { description: 'text, or an array of content blocks' },
        ),
      },
      { ...closed, description: 'a user message takes role and content' },
    ),
    Type.Object(
      {
        role: Type.Literal('assistant'),
        content: Type.Union(
          [
            LongText,
            Type.Array(
              Discriminated('type', [AnthropicText, ToolUse, Thinking, RedactedThinking], {
                description: 'text, tool_use, thinking or redacted_thinking; server tool blocks are not supported',
              }),
              { maxItems: 500 },
            ),
          ],
          { description: 'text, or an array of content blocks' },
        ),
      },
      { ...closed, description: 'an assistant message takes role and content' },
    ),
    Type.Object(
      {
        role: Type.Literal('system'),
        content: Type.Union([LongText, Type.Array(AnthropicText, { maxItems: 100 })], { description: 'text, or text blocks' }),
      },
      { ...closed, description: 'a system message takes role and content' },
    ),
  ],
  { description: 'user, assistant or system' },
);

const AnthropicTool = Tagged(
  'type',
  [],
  Type.Object(
    {
      type: Type.Optional(Type.Literal('custom')),
      name: ToolName,
      description: Type.Optional(ToolDescription),
      input_schema: JsonObject,
      strict: Type.Optional(Type.Boolean()),
      cache_control: CacheControl,
    },
    { ...closed, description: 'a tool takes type, name, description, input_schema, strict and cache_control' },
  ),
  { description: 'custom; server tools such as web_search, bash or code_execution are not supported' },
);

const DisableParallel = Type.Optional(Type.Boolean());
const AnthropicToolChoice = Discriminated(
  'type',
  [
    Type.Object({ type: Type.Literal('auto'), disable_parallel_tool_use: DisableParallel }, closed),
    Type.Object({ type: Type.Literal('any'), disable_parallel_tool_use: DisableParallel }, closed),
    Type.Object({ type: Type.Literal('tool'), name: ToolName, disable_parallel_tool_use: DisableParallel }, closed),
    Type.Object({ type: Type.Literal('none') }, closed),
  ],
  { description: 'auto, any, tool or none' },
);

const ThinkingDisplay = Type.Optional(Nullable(Type.Union([Type.Literal('summarized'), Type.Literal('omitted')])));

/**
 * POST /v1/messages (lib/dialects/anthropic-messages.ts). `cache_control` marks prompt-cache
 * checkpoints (on a block, a tool, or the request: after its last block). `thinking` turns on the
 * model's reasoning (lib/platforms/managed/reasoning.ts); `top_k` samples where the model takes it.
 * `output_config.effort` is accepted and changes nothing; `metadata.user_id` is recorded, `service_tier`
 * standard_only asks for Standard; the
 * server-side features (containers, MCP servers, context management) are not supported.
 */
export const MessagesBody = Type.Object(
  {
    model: ModelName,
    max_tokens: Type.Integer({ minimum: 1, maximum: 128_000 }),
    messages: Type.Array(AnthropicMessage, { minItems: 1, maxItems: MAX_MESSAGES }),
    system: Type.Optional(Type.Union([LongText, Type.Array(AnthropicText, { maxItems: 100 })], { description: 'text, or text blocks' })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(TopP),
    stop_sequences: Type.Optional(Type.Array(StopWord, { maxItems: 4 })),
    stream: Type.Optional(Type.Boolean()),
    tools: Type.Optional(Type.Array(AnthropicTool, { maxItems: 128 })),
    tool_choice: Type.Optional(AnthropicToolChoice),
    metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))) }, closed)),
    thinking: Type.Optional(
      Discriminated(
        'type',
        [
          Type.Object(
            { type: Type.Literal('enabled'), budget_tokens: Type.Integer({ minimum: 0, maximum: 128_000 }), display: ThinkingDisplay },
            closed,
          ),
          Type.Object({ type: Type.Literal('disabled') }, closed),
          Type.Object({ type: Type.Literal('adaptive'), display: ThinkingDisplay }, closed),
        ],
        { description: 'enabled (budget_tokens of at least 1024), disabled, or adaptive where the model has it' },
      ),
    ),
    output_config: Type.Optional(
      Type.Object(
        {
          format: Type.Optional(Nullable(Type.Object({ type: Type.Literal('json_schema'), schema: JsonObject }, closed))),
          effort: Type.Optional(
            Nullable(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('xhigh'), Type.Literal('max')])),
          ),
        },
        closed,
      ),
    ),
    service_tier: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('standard_only')])),
    cache_control: CacheControl,
    top_k: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, description: 'sample from the k likeliest tokens (1 to 500), where the model takes it' }),
    ),
    ...notSupported(['container', 'mcp_servers', 'context_management', 'inference_geo', 'speed']),
  },
  closed,
);

/** POST /v1/messages/count_tokens: a Messages request without what only an answer needs (max_tokens, stream). */
export const MessagesCountTokensBody = Type.Omit(MessagesBody, ['max_tokens', 'stream'], { additionalProperties: false });
