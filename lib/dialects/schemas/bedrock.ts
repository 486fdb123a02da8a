// ---------------------------------------------------------------------------------------------
// The /bedrock door's requests: Bedrock's ConverseRequest (bedrock-runtime's REST shape; the model is
// the path's), InvokeModel's Claude body and CountTokens'. Each object is closed, as the SDKs send
// only the model's members; the members of features the door does not offer are declared as
// accepting nothing, so that they are refused as not supported rather than as unknown. The dialects
// (lib/dialects/bedrock-converse.ts, bedrock-invoke.ts) read them as their Static types.
// ---------------------------------------------------------------------------------------------
import { Type, type Static } from '@sinclair/typebox';
import { MessagesBody } from './anthropic-messages';
import { DocumentData, JsonObject, LongText, MAX_IMAGE_URL_CHARS, ToolName, closed, notSupported } from './shared';

const ToolUseId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' });
const CachePoint = Type.Object({ cachePoint: Type.Object({ type: Type.Literal('default') }, closed) }, closed);
const Text = Type.Object({ text: LongText }, closed);

const Image = Type.Object(
  {
    image: Type.Object(
      {
        format: Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('gif'), Type.Literal('webp')]),
        source: Type.Object(
          { bytes: Type.String({ minLength: 1, maxLength: MAX_IMAGE_URL_CHARS, description: 'the image, base64 (as the SDKs send a blob)' }) },
          closed,
        ),
      },
      closed,
    ),
  },
  closed,
);

const ConverseDocument = Type.Object(
  {
    format: Type.Union([Type.Literal('pdf'), Type.Literal('txt')], {
      description: 'pdf or txt (the formats every document-reading model takes)',
    }),
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "the document's name (made to fit Converse's rule: letters, digits, single spaces, - ( ) [ ])",
    }),
    source: Type.Object({ bytes: DocumentData }, closed),
  },
  closed,
);
export type ConverseDocument = Static<typeof ConverseDocument>;
const DocumentBlock = Type.Object({ document: ConverseDocument }, closed);

const ToolUse = Type.Object({ toolUse: Type.Object({ toolUseId: ToolUseId, name: ToolName, input: JsonObject }, closed) }, closed);

const ToolResultContent = Type.Union([Text, Type.Object({ json: Type.Unknown() }, closed)]);
export type ToolResultContent = Static<typeof ToolResultContent>;
const ToolResult = Type.Object(
  {
    toolResult: Type.Object(
      {
        toolUseId: ToolUseId,
        content: Type.Array(ToolResultContent, { maxItems: 100 }),
        status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('error')])),
      },
      closed,
    ),
  },
  closed,
);

const Reasoning = Type.Object(
  {
    reasoningContent: Type.Union([
      Type.Object({ reasoningText: Type.Object({ text: LongText, signature: Type.Optional(Type.String({ maxLength: 100_000 })) }, closed) }, closed),
      Type.Object({ redactedContent: Type.String({ maxLength: 200_000, description: 'base64' }) }, closed),
    ]),
  },
  closed,
);

const ContentBlock = Type.Union([Text, Image, DocumentBlock, ToolUse, ToolResult, Reasoning, CachePoint], {
  description:
    'a text, image, document (pdf or txt), toolUse, toolResult, reasoningContent or cachePoint block (video and guardContent blocks are not supported yet)',
});
export type ContentBlock = Static<typeof ContentBlock>;

const Message = Type.Object(
  {
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.Array(ContentBlock, { minItems: 1, maxItems: 1000 }),
  },
  closed,
);

const ToolSpec = Type.Object(
  {
    toolSpec: Type.Object(
      {
        name: ToolName,
        description: Type.Optional(Type.String({ minLength: 1, maxLength: 50_000 })),
        inputSchema: Type.Object({ json: JsonObject }, closed),
      },
      closed,
    ),
  },
  closed,
);

const Empty = Type.Object({}, closed);

export const ConverseBody = Type.Object(
  {
    messages: Type.Array(Message, { minItems: 1, maxItems: 1000 }),
    system: Type.Optional(Type.Array(Type.Union([Text, CachePoint]), { maxItems: 100 })),
    inferenceConfig: Type.Optional(
      Type.Object(
        {
          maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 128_000 })),
          temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          topP: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          stopSequences: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 4 })),
        },
        closed,
      ),
    ),
    toolConfig: Type.Optional(
      Type.Object(
        {
          tools: Type.Array(Type.Union([ToolSpec, CachePoint]), { minItems: 1, maxItems: 128 }),
          toolChoice: Type.Optional(
            Type.Union([
              Type.Object({ auto: Empty }, closed),
              Type.Object({ any: Empty }, closed),
              Type.Object({ tool: Type.Object({ name: ToolName }, closed) }, closed),
            ]),
          ),
        },
        closed,
      ),
    ),
    additionalModelRequestFields: Type.Optional(
      Type.Object(
        {
          top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
          thinking: Type.Optional(
            Type.Union([
              Type.Object({ type: Type.Literal('enabled'), budget_tokens: Type.Integer({ minimum: 1 }) }, closed),
              Type.Object({ type: Type.Literal('adaptive') }, closed),
            ]),
          ),
          anthropic_beta: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })),
        },
        { ...closed, description: "what Anthropic's models take: top_k, thinking and anthropic_beta" },
      ),
    ),
    requestMetadata: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 256 }), { maxProperties: 16 })),
    ...notSupported(
      ['guardrailConfig', 'promptVariables', 'additionalModelResponseFieldPaths', 'performanceConfig', 'serviceTier', 'outputConfig'],
      'this service',
    ),
  },
  closed,
);
export type ConverseBody = Static<typeof ConverseBody>;

/**
 * InvokeModel's (and InvokeModelWithResponseStream's) body for Claude: Anthropic's Messages request
 * as Bedrock takes it (./anthropic-messages.ts MessagesBody without `model` and `stream`), with
 * `anthropic_version` and `anthropic_beta` in the body. Other models' native bodies are not taken:
 * Converse is the door for every model.
 */
export const InvokeBody = Type.Object(
  {
    // First: a body that is not Claude's is refused by naming what this door takes.
    anthropic_version: Type.Literal('bedrock-2023-05-31', {
      description: "Bedrock's Anthropic version: this door's InvokeModel takes Anthropic's Messages body only (Converse takes every model)",
    }),
    anthropic_beta: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })),
    ...Type.Omit(MessagesBody, ['model', 'stream']).properties,
  },
  closed,
);
export type InvokeBody = Static<typeof InvokeBody>;

/**
 * CountTokens' body: the InvokeModel body (base64, as the SDKs send a blob) or the Converse request's
 * messages, system prompt, tools and additional fields whose input tokens to count.
 */
export const CountTokensBody = Type.Object(
  {
    input: Type.Union([
      Type.Object(
        {
          invokeModel: Type.Object({ body: Type.String({ minLength: 1, maxLength: 8_000_000, description: "InvokeModel's body, base64" }) }, closed),
        },
        closed,
      ),
      Type.Object({ converse: Type.Pick(ConverseBody, ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'], closed) }, closed),
    ]),
  },
  closed,
);
export type CountTokensBody = Static<typeof CountTokensBody>;
