// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/gateway/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, Ref } from '../../lib/http/contract';
import { Platform } from '../system/response-schemas';

export const OpenAiModelList = Named(
  'OpenAiModelList',
  Type.Object({
    object: Type.Unsafe<'list'>({ const: 'list' }),
    data: Type.Array(
      Type.Object({
        id: Type.String(),
        object: Type.Unsafe<'model'>({ const: 'model' }),
        created: Type.Integer(),
        owned_by: Ref(Platform),
        capabilities: Type.Optional(
          Type.Object(
            {
              chat: Type.Boolean(),
              stream: Type.Boolean(),
              tools: Type.Boolean(),
              json_output: Type.Boolean(),
              image_input: Type.Boolean(),
              embeddings: Type.Boolean(),
            },
            {
              description:
                "What the model can do (recorded at deploy from the platform's catalogue); a request for what it cannot is a 400 naming the model.",
            },
          ),
        ),
      }),
    ),
  }),
);

export const Embeddings = Named(
  'Embeddings',
  Type.Object({
    object: Type.Unsafe<'list'>({ const: 'list' }),
    data: Type.Array(
      Type.Object({
        object: Type.Unsafe<'embedding'>({ const: 'embedding' }),
        index: Type.Integer(),
        embedding: Type.Union([Type.Array(Type.Number()), Type.String()], {
          description: 'the vector as numbers, or with `encoding_format` base64 its float32 bytes (little-endian) in base64',
        }),
      }),
    ),
    model: Type.String(),
    usage: Type.Object({ prompt_tokens: Type.Integer(), total_tokens: Type.Integer() }),
  }),
);

/** OpenAI's response object (Responses API): `output` holds a `message` item (`output_text` parts) and a `function_call` item per tool call; `usage` the tokens counted. */
export const ResponseSchema = Named(
  'Response',
  Type.Object(
    {
      id: Type.String(),
      object: Type.Unsafe<'response'>({ const: 'response' }),
      created_at: Type.Integer(),
      status: Type.Unsafe<'completed' | 'incomplete'>({ type: 'string', enum: ['completed', 'incomplete'] }),
      model: Type.String(),
      store: Type.Optional(Type.Boolean({ description: 'Whether the response is kept for GET /v1/responses/{id} and previous_response_id.' })),
      previous_response_id: Type.Optional(
        Type.Unsafe<string | null>({ description: 'The stored response this one continues, or null.', type: ['string', 'null'] }),
      ),
      output: Type.Array(Type.Object({ type: Type.Unsafe<'message' | 'function_call'>({ type: 'string', enum: ['message', 'function_call'] }) })),
      usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer() }),
    },
    {
      description:
        "OpenAI's response object (Responses API): `output` holds a `message` item (`output_text` parts) and a `function_call` item per tool call; `usage` the tokens counted.",
    },
  ),
);

/** Anthropic's message object: `content` blocks of type thinking (thinking, signature), redacted_thinking (data), text and tool_use, `stop_reason` end_turn, max_tokens, stop_sequence or tool_use. */
export const AnthropicMessage = Named(
  'AnthropicMessage',
  Type.Object(
    {
      id: Type.String(),
      type: Type.Unsafe<'message'>({ const: 'message' }),
      role: Type.Unsafe<'assistant'>({ const: 'assistant' }),
      model: Type.String(),
      content: Type.Array(
        Type.Object({
          type: Type.Unsafe<'thinking' | 'redacted_thinking' | 'text' | 'tool_use'>({
            type: 'string',
            enum: ['thinking', 'redacted_thinking', 'text', 'tool_use'],
          }),
        }),
      ),
      stop_reason: Type.String(),
      usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }),
    },
    {
      description:
        "Anthropic's message object: `content` blocks of type thinking (thinking, signature), redacted_thinking (data), text and tool_use, `stop_reason` end_turn, max_tokens, stop_sequence or tool_use.",
    },
  ),
);

export const MessageTokensCount = Named(
  'MessageTokensCount',
  Type.Object(
    { input_tokens: Type.Integer({ description: 'the input tokens of the request: system prompt, messages, images and tools' }) },
    { description: "Anthropic's token count." },
  ),
);

export const ChatCompletion = Named(
  'ChatCompletion',
  Type.Object({
    id: Type.String(),
    object: Type.Unsafe<'chat.completion'>({ const: 'chat.completion' }),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        message: Type.Object({
          role: Type.Unsafe<'assistant'>({ const: 'assistant' }),
          content: Type.Unsafe<string | null>({ type: ['string', 'null'], description: "the answer's text; null when the model only called tools" }),
          refusal: Type.Optional(Type.Null()),
          tool_calls: Type.Optional(
            Type.Array(
              Type.Object({
                id: Type.String(),
                type: Type.Unsafe<'function'>({ const: 'function' }),
                function: Type.Object({ name: Type.String(), arguments: Type.String({ description: 'the arguments as JSON text' }) }),
              }),
            ),
          ),
        }),
        logprobs: Type.Optional(Type.Null()),
        finish_reason: Type.Unsafe<'stop' | 'length' | 'tool_calls' | 'content_filter'>({
          type: 'string',
          enum: ['stop', 'length', 'tool_calls', 'content_filter'],
        }),
      }),
    ),
    usage: Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }),
    system_fingerprint: Type.Optional(Type.Null()),
  }),
);
