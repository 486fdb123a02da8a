/** POST /v1/chat/completions: OpenAI's request (lib/dialects/schemas/shared.ts says how these schemas are used). */
import { Type, type Static } from '@sinclair/typebox';
import { Discriminated } from '../../http/schemas';
import {
  AnyJson,
  CacheControl,
  CallId,
  ImageUrl,
  JsonObject,
  LongText,
  MAX_MESSAGES,
  MaxTokens,
  ModelName,
  Nullable,
  PlainText,
  ReasoningEffort,
  SchemaName,
  ServiceTierField,
  StopWord,
  Temperature,
  ToolArguments,
  ToolDescription,
  ToolName,
  TopP,
  closed,
  notSupported,
} from './shared';
import { MAX_DOCUMENT_BYTES } from '../../platforms/documents';

const Zero = Type.Number({ minimum: 0, maximum: 0, description: 'only 0 (no penalty) is supported by this gateway yet' });
const Stop = Type.Union([StopWord, Type.Array(StopWord, { maxItems: 4 }), Type.Null()], { description: 'a stop sequence, or up to 4' });

const ChatText = Type.Object(
  { type: Type.Literal('text'), text: LongText, cache_control: CacheControl },
  { ...closed, description: 'a text part takes type, text and cache_control' },
);
export type TextPart = Static<typeof ChatText>;
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
export type ImageUrlPart = Static<typeof ChatImage>;
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
/** A file part: a document as a data: URL (PDF or text) with its name; a file id needs stored files, which this service has none of. */
export type FilePart = Static<typeof ChatFile>;
const ChatRefusal = Type.Object(
  { type: Type.Literal('refusal'), refusal: LongText },
  { ...closed, description: 'a refusal part takes type and refusal' },
);
export type RefusalPart = Static<typeof ChatRefusal>;
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
export type WireToolCall = Static<typeof ChatToolCall>;

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
export type FunctionToolParam = Static<typeof ChatFunctionTool>;

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
export type OpenAiToolChoice = Static<typeof ChatToolChoice>;

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
export type ResponseFormat = Static<typeof ChatResponseFormat>;

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
export type OpenAiChatBody = Static<typeof ChatCompletionBody>;
