import { Type } from '@sinclair/typebox';

// The wire dialects' request bodies are declared once, in lib/dialects/schemas/, where the dialects
// read them as their Static types; the handlers' checks and the contract are made from the same schemas.
export { ChatCompletionBody } from '../../lib/dialects/schemas/openai-chat';
export { EmbeddingsBody } from '../../lib/dialects/schemas/openai-embeddings';
export { ResponsesBody } from '../../lib/dialects/schemas/openai-responses';
export { MessagesBody, MessagesCountTokensBody } from '../../lib/dialects/schemas/anthropic-messages';

/** GET and DELETE /v1/responses/{id}: a stored response's id, as the Responses API writes it. */
export const ResponsePath = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 256, description: 'resp_…' }) },
  { additionalProperties: false },
);
