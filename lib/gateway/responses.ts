import { config } from '../../core/config';
import { logger } from '../../core/observability';
import type { ApiKey } from '../../tables/keys';
import { getStoredResponse, putStoredResponse } from '../../tables/responses';
import * as openAiResponses from '../dialects/openai-responses';
import type { Conversation, ResponsesBody, ResponsesCall } from '../dialects/openai-responses';
import { BadRequest } from '../errors';
import { chatCall, type GatewayInput, type Keep } from './chat';
import type { Kept } from './stored-responses';

/**
 * POST /v1/responses: OpenAI's Responses API (lib/dialects/openai-responses.ts), streamed or not,
 * through the one metered call; and the stored responses it keeps (tables/responses.ts).
 *
 * `store` defaults to true, as OpenAI's does: the answered response and the conversation it ended
 * are kept for RESPONSES_TTL_DAYS under the key that made them, for `GET /v1/responses/{id}` and for
 * `previous_response_id` to continue. They are the key's: another key (the same owner's too, as
 * OpenAI scopes them to a project) hears that there is no such response, and revoking the key deletes
 * them. A continuation reads the stored conversation beside nothing else (one strongly consistent
 * GetItem in the key's own partition) before the call's one round of reads.
 */

async function previousConversation(key: ApiKey, id: string): Promise<Conversation> {
  const stored = await getStoredResponse<Kept>(key.id, id);
  if (!stored) {
    throw new BadRequest(`Previous response with id '${id}' not found.`, { code: 'previous_response_not_found', param: 'previous_response_id' });
  }
  return stored.data.conversation;
}

/** Keeps the answered response under its key; a conversation too large for one item is answered `store: false`. */
function keeper(input: GatewayInput<ResponsesBody>): Keep<ResponsesCall> {
  return async (reply, settled, meta, call) => {
    const assistant = { role: 'assistant' as const, content: reply.content, ...(reply.toolCalls?.length && { toolCalls: reply.toolCalls }) };
    const conversation: Conversation = { system: call.conversation.system, turns: [...call.conversation.turns, assistant] };
    const response = openAiResponses.answer(reply, settled, meta, call);
    const stored = await putStoredResponse<Kept>({
      id: response.id,
      keyId: input.key.id,
      userId: input.key.user_id,
      createdAt: new Date(meta.created * 1000).toISOString(),
      expiresAt: meta.created + config.responses.ttlDays * 86_400,
      data: { response, conversation },
    });
    if (!stored) {
      logger.warn('The response is too large to store; answered with store: false', { responseId: response.id });
      call.echo.store = false;
    }
  };
}

export async function answerResponse(input: GatewayInput<ResponsesBody>) {
  const previousId = input.body.previous_response_id;
  const previous = previousId != null ? await previousConversation(input.key, previousId) : undefined;
  const dialect = {
    ...openAiResponses,
    parse: (body: ResponsesBody) => openAiResponses.parse(body, previous),
    endUser: (body: ResponsesBody) => ({ value: body.user, param: 'user' }),
  };
  return chatCall<ResponsesBody, ResponsesCall>(dialect, input, input.body.store === false ? undefined : keeper(input));
}
