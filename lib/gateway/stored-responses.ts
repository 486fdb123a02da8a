/**
 * GET and DELETE /v1/responses/{id}: the responses /v1/responses stored (lib/gateway/responses.ts),
 * read and deleted by the key that made them. Nothing here calls a model, so these functions bundle no
 * platform client.
 */
import type { ApiKey } from '../../tables/keys';
import { deleteStoredResponse, getStoredResponse } from '../../tables/responses';
import type { Conversation } from '../dialects/openai-responses';
import { NotFound } from '../errors';

/** What a stored response keeps: the response as answered, and the conversation for the next turn. */
export interface Kept {
  response: unknown;
  conversation: Conversation;
}

/** As OpenAI words it; the same whether the id is unknown, expired, deleted or another key's. */
const notFound = (id: string) => new NotFound(`Response with id '${id}' not found.`);

/** GET /v1/responses/{id}: a response the key stored, as it was answered. */
export async function getResponse(key: ApiKey, id: string): Promise<unknown> {
  const stored = await getStoredResponse<Kept>(key.id, id);
  if (!stored) throw notFound(id);
  return stored.data.response;
}

/** DELETE /v1/responses/{id}: OpenAI's deletion answer; another key's (or an unknown) id is not found. */
export async function deleteResponse(key: ApiKey, id: string) {
  if (!(await deleteStoredResponse(key.id, id))) throw notFound(id);
  return { id, object: 'response', deleted: true };
}
