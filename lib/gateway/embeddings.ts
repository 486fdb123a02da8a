import { attempt } from '../calls/attempts';
import { afterAnswer, embed, prepareEmbedding, settlementOf } from '../calls/metered';
import { resolveTarget } from '../calls/resolve';
import * as openAiEmbeddings from '../dialects/openai-embeddings';
import { reply, withRates } from '../http/types';
import { embeddingsOf } from '../platforms/embeddings';
import { answeredBy, costHeader, type GatewayInput } from './chat';
import { attributionOf } from './attribution';
import { recordGatewayCall } from './record';

/**
 * POST /v1/embeddings: OpenAI's embeddings on a deployed embedding model, through the one metered call
 * (lib/calls/metered.ts): priced per input token, held against every budget and rate limit before the platform is
 * asked, recorded as one pending call like a chat completion (its output tokens are 0).
 */
export async function answerEmbeddings(input: GatewayInput<openAiEmbeddings.EmbeddingsBody>) {
  const parsed = openAiEmbeddings.parse(input.body);
  const attribution = attributionOf(input.event?.headers ?? {}, { value: input.body.user, param: 'user' });
  const target = await resolveTarget(input.key, input.payer.user, parsed.model, input.prefetched);
  const {
    call,
    result: embedded,
    attempts,
  } = await attempt(
    target,
    (resource, how) => prepareEmbedding({ payer: input.payer, resource, request: { ...parsed.request, ...how } }),
    (call) => embed(call, (request) => embeddingsOf(call.resource.type).embed(request)),
  );
  return afterAnswer(call, async () => {
    const answeredAt = new Date();
    const settlement = settlementOf(call, { ...embedded, tokensOut: 0 }, answeredAt);
    await recordGatewayCall(call, settlement, input.requestId, false, target.route, attribution);
    const meta = { id: call.callId, model: parsed.model, created: Math.floor(answeredAt.getTime() / 1000) };
    const headers = { ...costHeader(settlement.cost), ...answeredBy(call.resource, attempts) };
    return withRates(reply(200, openAiEmbeddings.answer(embedded, settlement, meta, parsed), headers), call.rateReport);
  });
}
