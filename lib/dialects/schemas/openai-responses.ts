/** POST /v1/responses: OpenAI's Responses API request (lib/dialects/schemas/shared.ts says how these schemas are used). */
import { Type, type Static } from '@sinclair/typebox';
import { Discriminated, Tagged } from '../../http/schemas';
import {
  AnyJson,
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
  Temperature,
  ToolArguments,
  ToolDescription,
  ToolName,
  TopP,
  closed,
  notSupported,
} from './shared';

const ItemStatus = Type.Union([Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('incomplete')]);
export type Status = Static<typeof ItemStatus>;
const InputText = Type.Object(
  { type: Type.Literal('input_text'), text: LongText },
  { ...closed, description: 'an input_text part takes type and text' },
);
export type InputText = Static<typeof InputText>;
const InputImage = Type.Object(
  {
    type: Type.Literal('input_image'),
    image_url: Type.Optional(Nullable(ImageUrl)),
    file_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    detail: Type.Optional(Nullable(Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high'), Type.Literal('original')]))),
  },
  { ...closed, description: 'an input_image part takes type, image_url (a data: URL) and detail' },
);
export type InputImage = Static<typeof InputImage>;
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
export type OutputTextPart = Static<typeof OutputText>;
const OutputRefusal = Type.Object(
  { type: Type.Literal('refusal'), refusal: LongText },
  { ...closed, description: 'a refusal part takes type and refusal' },
);
export type RefusalPart = Static<typeof OutputRefusal>;

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
export type InputItem = Static<typeof InputItem>;

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
export type FunctionTool = Static<typeof ResponsesFunctionTool>;

const ResponsesTool = Discriminated('type', [ResponsesFunctionTool], {
  description: 'function: the only kind of tool; built-in tools such as web_search or file_search are not supported',
});

const ResponsesToolChoice = Type.Union(
  [Type.Literal('none'), Type.Literal('auto'), Type.Literal('required'), Type.Object({ type: Type.Literal('function'), name: ToolName }, closed)],
  { description: 'none, auto, required, or {"type": "function", "name": …}' },
);
export type ResponsesToolChoice = Static<typeof ResponsesToolChoice>;

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
export type TextFormat = Static<typeof TextFormat>;

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
export type ResponsesBody = Static<typeof ResponsesBody>;
