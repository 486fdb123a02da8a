import { config } from '../../core/config';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { answer, prepareCall, settlementOf, type Payer, type PreparedCall } from '../calls/metered';
import { resolveModel, type NameLookup } from '../calls/resolve';
import { BadRequest } from '../errors';
import type { ChatRequest, ChatTurn } from '../platforms/types';
import { recordGatewayCall } from './record';

/**
 * POST /v1/chat/completions: one OpenAI chat completion on a deployed resource, through the one
 * metered call (lib/calls/metered.ts). What is this entry point's own: OpenAI's chat dialect (the
 * request into the canonical call, the answer out) and what it stores (recordGatewayCall).
 *
 * Its DynamoDB round trips, on a warm container: the key's lookup, its owner and the model's name
 * lookup side by side (lib/http/key-endpoint.ts prefetch); a reservation only when a budget applies;
 * after the answer, one PutItem. A streamed completion (stream.ts) takes the same steps.
 */

export interface CompletionBody {
  model: string;
  messages: { role: 'system' | 'developer' | 'user' | 'assistant'; content: string | { type: 'text'; text: string }[] }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[] | null;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
}

export interface CompletionInput {
  body: CompletionBody;
  key: ApiKey;
  user: User;
  payer: Payer;
  requestId: string;
  prefetched?: Promise<NameLookup>;
}

const textOfContent = (content: CompletionBody['messages'][number]['content']) =>
  typeof content === 'string' ? content : content.map((p) => p.text).join('');

/** OpenAI's messages as the canonical request: system and developer messages become the system prompt. */
export function toChatRequest(body: CompletionBody): Omit<ChatRequest, 'target'> {
  const system: string[] = [];
  const messages: ChatTurn[] = [];
  for (const m of body.messages) {
    const text = textOfContent(m.content);
    if (m.role === 'system' || m.role === 'developer') system.push(text);
    else messages.push({ role: m.role, content: text });
  }
  if (!messages.some((m) => m.role === 'user')) {
    throw new BadRequest("Invalid field 'messages': at least one message must have the role 'user'", { code: 'invalid_request', param: 'messages' });
  }
  const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return {
    system: system.length > 0 ? system.join('\n\n') : undefined,
    messages,
    maxTokens: body.max_tokens ?? body.max_completion_tokens ?? config.chat.maxOutputTokens,
    temperature: body.temperature,
    topP: body.top_p,
    stop: stop?.length ? stop : undefined,
  };
}

/** The resource resolved and the call prepared (model in service, budgets reserved), for either answer. */
export async function prepareCompletion(input: CompletionInput): Promise<PreparedCall> {
  const resource = await resolveModel(input.key, input.payer.user, input.body.model, input.prefetched);
  return prepareCall({ payer: input.payer, resource, request: toChatRequest(input.body) });
}

/** OpenAI's completion id of a call: `chatcmpl-` and the call id (so a client's id finds the call). */
export const completionId = (call: PreparedCall) => `chatcmpl-${call.callId.replaceAll('-', '')}`;

export async function completion(input: CompletionInput) {
  const call = await prepareCompletion(input);
  const reply = await answer(call);
  const answeredAt = new Date();
  const settlement = settlementOf(call, reply, answeredAt);
  await recordGatewayCall(call, settlement, input.requestId);
  const { tokensIn, tokensOut, costUsd } = settlement;
  return {
    costUsd,
    response: {
      id: completionId(call),
      object: 'chat.completion',
      created: Math.floor(answeredAt.getTime() / 1000),
      model: input.body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.content, refusal: null },
          logprobs: null,
          finish_reason: reply.finishReason ?? 'stop',
        },
      ],
      usage: { prompt_tokens: tokensIn, completion_tokens: tokensOut, total_tokens: tokensIn + tokensOut },
      system_fingerprint: null,
    },
  };
}
