import type { PlatformName } from '../core/vocabulary';
import { chargeWrite, settleWrite, type BudgetOwner, type Reservation } from './budgets';
import { TABLE } from './client';
import { isDataError } from './errors';
import { resourceChatCountersWrite } from './resources';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';
import { modelTotalsWrite, usageWrites } from './usage';

/**
 * The write of an answered gateway call (/v1/chat/completions): one transaction that logs the call
 * in its key's call log, counts it, and settles its spend.
 *
 *   PK KEYCALLS#<keyId>   SK MSG#<startedAt>#<callId>   the call: model, tokens, cost, latency, request
 *                                                       id; never the prompt or the reply (ttl 90 days)
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

function callPut(call: GatewayCall): TransactItems[number] {
  return {
    Put: {
      TableName: TABLE,
      Item: {
        PK: `KEYCALLS#${call.keyId}`,
        SK: `MSG#${call.startedAt}#${call.callId}`,
        entity: 'gateway-call',
        rid: call.requestId,
        r: call.resource.id,
        p: call.resource.type,
        m: call.modelId,
        ti: call.tokensIn,
        to: call.tokensOut,
        ms: call.latencyMs,
        usd: call.costUsd,
        at: call.answeredAt,
        ttl: Math.floor(Date.parse(call.startedAt) / 1000) + CALL_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

const settleItem = (settle: SpendSettle, costUsd: number) =>
  'reservation' in settle ? settleWrite(settle.reservation, costUsd) : chargeWrite(settle.owner, settle.month, costUsd, settle.budgetUsd);

/** How long the write keeps retrying through a database outage (the function times out at 29 s). */
const RETRY_BUDGET_MS = 10_000;

/**
 * Records an answered call. Item 0, the call's conditional put, makes a retry idempotent: finding it
 * there means an earlier attempt whose answer was lost recorded everything. A settle whose reservation
 * is gone (the call outlived the reservation's expiry, which then gave it back) becomes a plain charge,
 * so the recorded spend is still exactly the sum of the answered calls.
 */
export async function recordGatewayCall(call: GatewayCall, settles: SpendSettle[]): Promise<void> {
  const delta = { requests: 1, tokensIn: call.tokensIn, tokensOut: call.tokensOut, costUsd: call.costUsd };
  const answeredAt = new Date(call.answeredAt);
  const counted: TransactItems = [
    callPut(call),
    ...usageWrites([{ kind: 'user', id: call.userId }, { kind: 'key', id: call.keyId }, { kind: 'all' }], answeredAt, delta),
    modelTotalsWrite(call.resource.type, call.usageModelId, delta, answeredAt),
  ];
  let counters: TransactItems = [resourceChatCountersWrite(call.resource.id, call.latencyMs)];
  let current = [...settles];
  const deadline = Date.now() + RETRY_BUDGET_MS;
  for (;;) {
    const items = [...counted, ...counters, ...current.map((s) => settleItem(s, call.costUsd))];
    try {
      await transactWrite(items, 25);
      return;
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (reasons?.[0] === 'ConditionalCheckFailed') return;
      if (reasons?.includes('ConditionalCheckFailed')) {
        // The resource was removed mid-call (its counters' condition), or a reservation expired.
        const settleStart = counted.length + counters.length;
        if (counters.length > 0 && reasons[counted.length] === 'ConditionalCheckFailed') counters = [];
        current = current.map((s, i) =>
          'reservation' in s && reasons[settleStart + i] === 'ConditionalCheckFailed'
            ? { owner: s.reservation.owner, month: s.reservation.month, budgetUsd: null }
            : s,
        );
        continue;
      }
      if (!isDataError(err, 'DatabaseUnavailable') || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 500));
    }
  }
}
