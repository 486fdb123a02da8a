import { Type } from '@sinclair/typebox';

/**
 * POST /v1/chat/completions: OpenAI's request, the part of it this gateway serves. Fields a client
 * sends for features it does not have (n > 1, logprobs, tools) are refused by name rather than
 * silently ignored; a few that change nothing here (user, seed, penalties at 0) are accepted. OpenAI's
 * fields for the features it lacks are declared as accepting nothing, so they are refused as not
 * supported (OpenAI's `unsupported_parameter`) while a misspelt field is an unknown one.
 */
const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String({ maxLength: 200_000 }) }, { additionalProperties: false });
const Content = Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(TextPart, { minItems: 1, maxItems: 100 })], {
  description: 'text, or an array of text parts',
});

const Message = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('developer'), Type.Literal('user'), Type.Literal('assistant')], {
      description: 'system, developer (as system), user or assistant',
    }),
    content: Content,
    name: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const StopWord = Type.String({ minLength: 1, maxLength: 200 });
const Zero = Type.Number({ minimum: 0, maximum: 0, description: 'only 0 (no penalty) is supported by this gateway yet' });

/** OpenAI's request fields for features this gateway does not offer yet (Chat Completions API reference). */
const UNSUPPORTED = [
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'response_format',
  'logprobs',
  'top_logprobs',
  'logit_bias',
  'audio',
  'modalities',
  'prediction',
  'reasoning_effort',
  'verbosity',
  'web_search_options',
  'service_tier',
  'store',
  'metadata',
  'prompt_cache_key',
  'safety_identifier',
] as const;
const NotSupported = Type.Optional(Type.Never({ description: 'not supported by this gateway yet' }));
const unsupported = Object.fromEntries(UNSUPPORTED.map((field) => [field, NotSupported])) as Record<
  (typeof UNSUPPORTED)[number],
  typeof NotSupported
>;

export const ChatCompletionBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 300, description: "a model id from GET /v1/models (a resource's endpoint name)" }),
    messages: Type.Array(Message, { minItems: 1, maxItems: 500 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_000 })),
    max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_000 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    stop: Type.Optional(Type.Union([StopWord, Type.Array(StopWord, { maxItems: 4 }), Type.Null()])),
    stream: Type.Optional(Type.Boolean()),
    stream_options: Type.Optional(
      Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), Type.Null()]),
    ),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1, description: 'only 1 is supported by this gateway yet' })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    seed: Type.Optional(Type.Integer()),
    presence_penalty: Type.Optional(Zero),
    frequency_penalty: Type.Optional(Zero),
    ...unsupported,
  },
  { additionalProperties: false },
);
