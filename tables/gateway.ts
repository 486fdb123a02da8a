import type { PlatformName } from '../core/vocabulary';
import { chargeWrite, settleWrite, type BudgetOwner, type Reservation } from './budgets';
import { cancellationReasons } from './transactions';
import { callTransaction, commitTurn } from './turns';

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

/** The spend of one budget owner: the reservation to settle, or a plain charge when none was taken. */
export type SpendSettle = { reservation: Reservation } | { owner: BudgetOwner; month: string; budgetUsd: number | null };

const CALL_TTL_SECONDS = 90 * 86_400;

const settleItem = (settle: SpendSettle, costUsd: number) =>
  'reservation' in settle ? settleWrite(settle.reservation, costUsd) : chargeWrite(settle.owner, settle.month, costUsd, settle.budgetUsd);

/**
 * Records an answered call. The call item's conditional put (item 0) makes a retry idempotent
 * (commitTurn). A settle whose reservation is gone (the call outlived the reservation's expiry, which
 * gave it back) becomes a plain charge, so the recorded spend is still exactly the sum of the
 * answered calls.
 */
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
  let current = settles;
  for (let attempt = 0; ; attempt++) {
    try {
      await commitTurn([...counted, ...current.map((s) => settleItem(s, call.costUsd))]);
      return;
    } catch (err) {
      const reasons = cancellationReasons(err);
      const expired = (i: number) => reasons?.[counted.length + i] === 'ConditionalCheckFailed';
      if (attempt > 0 || !current.some((s, i) => 'reservation' in s && expired(i))) throw err;
      current = current.map((s, i) =>
        'reservation' in s && expired(i) ? { owner: s.reservation.owner, month: s.reservation.month, budgetUsd: null } : s,
      );
    }
  }
}
