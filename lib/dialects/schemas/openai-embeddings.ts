/** POST /v1/embeddings: OpenAI's embeddings request (lib/dialects/schemas/shared.ts says how these schemas are used). */
import { Type, type Static } from '@sinclair/typebox';
import { ModelName, closed } from './shared';

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
export type EmbeddingsBody = Static<typeof EmbeddingsBody>;
