/** The response schemas of functions/bedrock/: Bedrock's Converse answer and error body. */
import { Type } from '@sinclair/typebox';
import { Named } from '../../lib/http/contract';

export const BedrockErrorBody = Named(
  'BedrockErrorBody',
  Type.Object({ message: Type.String() }, { description: "Bedrock's error body; the error's name is the `x-amzn-errortype` header." }),
);

const ConverseUsage = Type.Object(
  {
    inputTokens: Type.Integer({ description: 'the prompt outside the prompt cache' }),
    outputTokens: Type.Integer(),
    totalTokens: Type.Integer(),
    cacheReadInputTokens: Type.Optional(Type.Integer()),
    cacheWriteInputTokens: Type.Optional(Type.Integer()),
  },
  { description: 'the tokens the call was recorded (and billed) as' },
);

export const ConverseResponse = Named(
  'ConverseResponse',
  Type.Object(
    {
      output: Type.Object({
        message: Type.Object({
          role: Type.Unsafe<'assistant'>({ const: 'assistant' }),
          content: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
            description: 'reasoningContent, text and toolUse blocks, in that order',
          }),
        }),
      }),
      stopReason: Type.Union([Type.Literal('end_turn'), Type.Literal('tool_use'), Type.Literal('max_tokens'), Type.Literal('content_filtered')]),
      usage: ConverseUsage,
      metrics: Type.Object({ latencyMs: Type.Integer() }),
    },
    { description: "Bedrock's ConverseResponse." },
  ),
);

export const CountTokensResponse = Named(
  'CountTokensResponse',
  Type.Object({ inputTokens: Type.Integer({ description: 'the input tokens of the request' }) }, { description: "Bedrock's CountTokensResponse." }),
);
