import { Type } from '@sinclair/typebox';

// The door's request bodies (Converse, InvokeModel's Claude body, CountTokens) are declared once, in
// lib/dialects/schemas/bedrock.ts, where the dialects read them as their Static types.
export { ConverseBody, CountTokensBody, InvokeBody } from '../../lib/dialects/schemas/bedrock';

export const ConversePath = Type.Object(
  { modelId: Type.String({ minLength: 1, maxLength: 2048, description: "a resource's or a route's name (GET /v1/models)" }) },
  { additionalProperties: false },
);
