/** POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages request (lib/dialects/schemas/shared.ts says how these schemas are used). */
import { Type, type Static } from '@sinclair/typebox';
import { Discriminated, Tagged } from '../../http/schemas';
import { MAX_DOCUMENT_BYTES } from '../../platforms/documents';
import {
  CacheControl,
  CallId,
  DocumentData,
  JsonObject,
  LongText,
  MAX_IMAGE_URL_CHARS,
  MAX_MESSAGES,
  ModelName,
  Nullable,
  StopWord,
  ToolDescription,
  ToolName,
  TopP,
  closed,
  notSupported,
} from './shared';

const AnthropicText = Type.Object(
  {
    type: Type.Literal('text'),
    text: LongText,
    cache_control: CacheControl,
    citations: Type.Optional(Nullable(Type.Array(JsonObject, { maxItems: 1000 }))),
  },
  { ...closed, description: 'a text block takes type, text, cache_control and citations' },
);
export type TextBlock = Static<typeof AnthropicText>;
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
export type ImageBlock = Static<typeof AnthropicImage>;
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
/** Anthropic's document block (a PDF or text): base64 with its media type, or plain text (lib/dialects/documents.ts). */
export type DocumentBlock = Static<typeof AnthropicDocument>;
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
export type AnthropicTool = Static<typeof AnthropicTool>;

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
export type AnthropicToolChoice = Static<typeof AnthropicToolChoice>;

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
export type MessagesBody = Static<typeof MessagesBody>;

/** POST /v1/messages/count_tokens: a Messages request without what only an answer needs (max_tokens, stream). */
export const MessagesCountTokensBody = Type.Omit(MessagesBody, ['max_tokens', 'stream'], { additionalProperties: false });
export type MessagesCountTokensBody = Static<typeof MessagesCountTokensBody>;
