import { config } from '../../core/config';
import type { Nanos } from '../../core/money';
import { logger } from '../../core/observability';
import { getItems } from '../client';
import { conversationFromItem, conversationKey, threadKey, threadPut, type Conversation } from '../conversations';
import { retrySettles, settleItem, type SpendSettle } from '../budgets';
import { rateSettleWrite, type RateHold } from '../rates';
import { isDataError } from '../errors';
import { recentThreadMessages, turnPuts, type NewTurn, type StoredMessage, type TurnReply } from '../messages';
import { resourceFromItem, resourceKey, type Resource } from '../resources';
import { spendOwnerAttributes } from '../breakdown';
import { cancellationReasons, transactWrite, type TransactItems } from '../transactions';
import { usageWrites, type UsageScope } from '../usage';

/**
 * The two access patterns of a chat turn (lib/chat/turn.ts): what it reads before the model is asked,
 * and the one write that records it after the model has answered.
 */

export interface TurnContext {
  conversation: Conversation | undefined;
  resource: Resource | undefined;
  /** Whether the thread being continued exists in this conversation (always false for a new thread). */
  threadFound: boolean;
  /** The thread's newest messages, newest first, for the model's context. */
  recent: StoredMessage[];
}

/**
 * Everything a turn needs to know, in one round trip: one strongly consistent BatchGet of the
 * conversation, the resource and (when continuing) the thread, in parallel with a strongly consistent
 * Query of the thread's newest turns. The thread key lies inside the conversation's partition, so
 * finding it proves it belongs to that conversation.
 */
export async function readTurnContext(input: {
  conversationId: string;
  resourceId: string;
  /** The thread being continued; absent for a new thread or a legacy turn. */
  threadId?: string;
  recentTurns: number;
}): Promise<TurnContext> {
  const { conversationId, resourceId, threadId } = input;
  const keys = [conversationKey(conversationId), resourceKey(resourceId)];
  if (threadId) keys.push(threadKey(conversationId, threadId));
  const [items, recent] = await Promise.all([getItems(keys), threadId ? recentThreadMessages(threadId, input.recentTurns) : []]);
  const conversation = items(conversationKey(conversationId));
  const resource = items(resourceKey(resourceId));
  return {
    conversation: conversation ? conversationFromItem(conversation) : undefined,
    resource: resource ? resourceFromItem(resource) : undefined,
    threadFound: threadId !== undefined && items(threadKey(conversationId, threadId)) !== undefined,
    recent,
  };
}

export interface TurnRecord {
  turn: NewTurn;
  userId: string;
  /** The turn starts its thread: the thread item is created with it. */
  startsThread: boolean;
  /** The caller's teams: the turn counts in each team's usage too. */
  teamIds?: string[];
}

/**
 * The items of an answered turn's transaction, the caller's own and their teams': the turn item
 * first (its conditional put makes the transaction idempotent), its conversation index entry (the
 * conversation-wide listing reads it: listed on the caller's next request), the hour items of the
 * caller, of the conversation and of each of the caller's teams (shared by the team's members only),
 * and the thread item when the turn starts one. Nothing every user shares is here: the service-wide and per-model totals and the resource's counters are folded from
 * the table's stream (tables/writes/aggregates.ts).
 *
 * Exported for the write paths built on this one (the gateway adds its caller's key items and passes
 * the whole to commitTurn).
 */
function turnTransaction(record: TurnRecord, scopes?: UsageScope[]): TransactItems {
  const { turn } = record;
  const reply = turn.reply;
  if (!reply) throw new Error('turnTransaction: a turn without a reply is recorded with recordFailedTurn');
  // The turn item names its caller and teams for the spend breakdown (tables/breakdown.ts).
  const items: TransactItems = [
    ...turnPuts(turn, spendOwnerAttributes({ userId: record.userId, teamIds: record.teamIds ?? [] })),
    ...counterWrites(
      scopes ?? [
        { kind: 'user', id: record.userId },
        { kind: 'conversation', id: turn.conversationId },
        ...(record.teamIds ?? []).map((id) => ({ kind: 'team' as const, id })),
      ],
      reply,
    ),
  ];
  if (record.startsThread && turn.threadId) {
    items.push(threadPut({ conversationId: turn.conversationId, threadId: turn.threadId, userId: record.userId, at: turn.startedAt }));
  }
  return items;
}

/** One counted request, in the hour item of each scope, at the time it was answered. */
function counterWrites(scopes: UsageScope[], reply: Omit<TurnReply, 'text'>): TransactItems {
  const delta = { requests: 1, tokensIn: reply.tokensIn, tokensOut: reply.tokensOut, cost: reply.cost };
  return usageWrites(scopes, new Date(reply.answeredAt), delta);
}

/**
 * Runs a turn's transaction (item 0 must be the turn's conditional put). By then the model has
 * answered (and been paid for), so the write is worth retrying, and it is idempotent: a retried
 * attempt that finds the turn item already there means an earlier attempt whose answer was lost did
 * record the whole turn.
 *
 *   - TransactionConflict with the caller's own concurrent turns: retried inside transactWrite,
 *   - the database briefly unavailable: retried here with jitter,
 *     both within one budget well inside the function's timeout (config.table.turnWriteRetryMs: a
 *     time, not a count, since conflicts come only from one caller's own concurrency).
 *   - Any other cancellation (a condition of an item the caller added) is the caller's to handle.
 */
async function commitTurn(items: TransactItems): Promise<void> {
  const deadline = Date.now() + config.table.turnWriteRetryMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await transactWrite(items, { until: deadline });
      return;
    } catch (err) {
      if (cancellationReasons(err)?.[0] === 'ConditionalCheckFailed') return;
      if (!isDataError(err, 'DatabaseUnavailable') || Date.now() >= deadline) throw err;
      logger.warn({ message: 'turn transaction failed; retrying', attempt });
      await new Promise((r) => setTimeout(r, 50 + Math.random() * Math.min(2000, 100 * 2 ** attempt)));
    }
  }
}

/**
 * Commits a counted call or turn with the budget owners' spend settled in the same transaction, so
 * the recorded spend is exactly the sum of the answered calls. A settle whose reservation expired
 * meanwhile (charged its bound) adjusts that charge to the true cost instead (tables/budgets.ts).
 */
async function commitCharged(counted: TransactItems, settles: SpendSettle[], cost: Nanos): Promise<void> {
  let current = settles;
  // Each retry resolves at least one failed settle (open -> expired -> plain charge): at most two.
  for (let attempt = 0; ; attempt++) {
    try {
      await commitTurn([...counted, ...current.map((s) => settleItem(s, cost))]);
      return;
    } catch (err) {
      const reasons = cancellationReasons(err);
      const next = reasons && attempt < 2 ? retrySettles(current, (i) => reasons[counted.length + i] === 'ConditionalCheckFailed') : undefined;
      if (!next || !current.some((_, i) => reasons?.[counted.length + i] === 'ConditionalCheckFailed')) throw err;
      current = next;
    }
  }
}

/**
 * Records a turn whose model call failed: the turn item without a reply (the user's text, marked
 * failed, nothing counted) and its conversation index entry, in one transaction, retried like an
 * answered turn's so that the user's text is not lost to a brief outage.
 */
export async function recordFailedTurn(turn: NewTurn): Promise<void> {
  await commitTurn(turnPuts({ ...turn, reply: undefined }));
}

/**
 * Records an answered turn: one transaction of the caller's own items (turnTransaction), with the
 * user's spend settled when their budget is counted (`settles`, none otherwise).
 */
export async function recordTurn(record: TurnRecord, settles: SpendSettle[] = [], rates: RateHold[] = []): Promise<void> {
  const tokens = (record.turn.reply?.tokensIn ?? 0) + (record.turn.reply?.tokensOut ?? 0);
  await commitCharged([...turnTransaction(record), ...rates.map((r) => rateSettleWrite(r, tokens))], settles, record.turn.reply?.cost ?? 0);
}
