import type { PlatformName } from '../core/vocabulary';
import type { SpendSettle } from './budgets';
import { callTransaction, commitCharged } from './turns';

/**
 * The write of an answered gateway call (/v1/chat/completions), on the chat write path
 * (tables/turns.ts callTransaction, commitTurn): one transaction of the caller's own items only.
 *
 *   PK KEYCALLS#<keyId>   SK MSG#<startedAt>#<callId>   the call (entity `turn`, no texts): model,
 *                                                       tokens, cost, latency, request id (ttl 90 days)
 *   the hour items of the user's and the key's usage scopes
 *   the key's and the user's spend items (tables/budgets.ts): each reservation settled to the cost
 *
 * The stream aggregator folds the call item into the service-wide and per-model totals and the
 * resource's chat counters (tables/aggregates.ts), as it does a chat turn: nothing every user shares
 * is written on the request path.
 *
 * A gateway call stores no text: an OpenAI-compatible gateway is a pipe its clients' data passes
 * through (their own conversation state lives with them), and keeping it would make every key a
 * store of other systems' data.
 */

export interface GatewayCall {
  callId: string;
  requestId: string;
  keyId: string;
  userId: string;
  startedAt: string;
  answeredAt: string;
  resource: { id: string; type: PlatformName };
  /** The model the usage is counted against (model totals) and the one that answered. */
  usageModelId: string;
  modelId: string;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  costUsd: number;
}

const CALL_TTL_SECONDS = 90 * 86_400;

/** Records an answered call with its spend settled (tables/turns.ts commitCharged). */
export async function recordGatewayCall(call: GatewayCall, settles: SpendSettle[]): Promise<void> {
  const counted = callTransaction(
    {
      partition: `KEYCALLS#${call.keyId}`,
      callId: call.callId,
      startedAt: call.startedAt,
      resourceId: call.resource.id,
      reply: {
        answeredAt: call.answeredAt,
        modelId: call.modelId,
        usageModelId: call.usageModelId,
        platform: call.resource.type,
        tokensIn: call.tokensIn,
        tokensOut: call.tokensOut,
        latencyMs: call.latencyMs,
        costUsd: call.costUsd,
      },
      attributes: { k: call.keyId, rid: call.requestId, ttl: Math.floor(Date.parse(call.startedAt) / 1000) + CALL_TTL_SECONDS },
    },
    [
      { kind: 'user', id: call.userId },
      { kind: 'key', id: call.keyId },
    ],
  );
  await commitCharged(counted, settles, call.costUsd);
}
