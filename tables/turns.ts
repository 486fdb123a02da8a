import { logger } from '../core/observability';
import type { PlatformName } from '../core/vocabulary';
import { getItems } from './client';
import { conversationFromItem, conversationKey, threadKey, threadWrite, type Conversation } from './conversations';
import { isDataError } from './errors';
import { messagePut, recentThreadMessages, type StoredMessage } from './messages';
import { resourceChatCountersWrite, resourceFromItem, resourceKey, type Resource } from './resources';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';
import { modelTotalsWrite, usageWrites, type UsageDelta } from './usage';

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
 * Query of the thread's newest messages. The thread key lies inside the conversation's partition, so
 * finding it proves it belongs to that conversation.
 */
export async function readTurnContext(input: {
  conversationId: string;
  resourceId: string;
  /** The thread being continued; absent for a new thread or a legacy turn. */
  threadId?: string;
  recentMessages: number;
}): Promise<TurnContext> {
  const { conversationId, resourceId, threadId } = input;
  const keys = [conversationKey(conversationId), resourceKey(resourceId)];
  if (threadId) keys.push(threadKey(conversationId, threadId));
  const [items, recent] = await Promise.all([getItems(keys), threadId ? recentThreadMessages(threadId, input.recentMessages) : []]);
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
  userId: string;
  conversationId: string;
  /** A thread turn names its thread; `isNew` when this turn starts it. Legacy turns have none. */
  thread?: { id: string; isNew: boolean };
  resource: { id: string; type: PlatformName };
  /** The model the usage is counted against (model totals). */
  usageModelId: string;
  userMessage: StoredMessage;
  assistantMessage: StoredMessage;
  latencyMs: number;
  delta: UsageDelta;
  answeredAt: Date;
}

/** Concurrent turns conflict on the shared counters (the ALL scope, a busy thread); each retry is safe. */
const TRANSACTION_ATTEMPTS = 25;
/** How long a turn keeps retrying through a database outage (the function times out at 29 s). */
const OUTAGE_RETRY_BUDGET_MS = 10_000;

/**
 * Records an answered turn in one transaction: both messages, the thread, every usage counter, the
 * model totals and the resource's chat counters, so a counted turn always has its messages and a
 * stored turn is always counted.
 *
 * By then the model has answered (and been paid for), so the write is worth retrying, and it is
 * idempotent: item 0, the user message, is a conditional put of a fresh key, so a retried attempt that
 * finds it already there means an earlier attempt whose answer was lost did record the whole turn.
 *
 *   - TransactionConflict with other turns on the shared counters: retried inside transactWrite.
 *   - The database briefly unavailable: retried here with jitter, within a budget well inside the
 *     function's timeout.
 *   - The resource removed mid-turn (its counters' condition failed): recorded without them.
 */
export async function recordTurn(turn: TurnRecord): Promise<void> {
  const items: TransactItems = [messagePut(turn.userMessage), messagePut(turn.assistantMessage)];
  if (turn.thread) {
    items.push(
      threadWrite({
        conversationId: turn.conversationId,
        threadId: turn.thread.id,
        userId: turn.userId,
        resourceId: turn.resource.id,
        isNew: turn.thread.isNew,
        at: turn.assistantMessage.timestamp,
        addMessages: 2,
      }),
    );
  }
  items.push(
    ...usageWrites(
      [{ kind: 'user', id: turn.userId }, { kind: 'conversation', id: turn.conversationId }, { kind: 'all' }],
      turn.answeredAt,
      turn.delta,
    ),
    modelTotalsWrite(turn.resource.type, turn.usageModelId, turn.delta, turn.answeredAt),
    resourceChatCountersWrite(turn.resource.id, turn.latencyMs),
  );

  const deadline = Date.now() + OUTAGE_RETRY_BUDGET_MS;
  let pending = items;
  for (let attempt = 1; ; attempt++) {
    try {
      await transactWrite(pending, TRANSACTION_ATTEMPTS);
      return;
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (reasons?.[0] === 'ConditionalCheckFailed') return;
      const failed = reasons?.filter((r) => r === 'ConditionalCheckFailed').length ?? 0;
      if (pending === items && failed === 1 && reasons?.[items.length - 1] === 'ConditionalCheckFailed') {
        pending = items.slice(0, -1);
        continue;
      }
      if (!isDataError(err, 'DatabaseUnavailable') || Date.now() >= deadline) throw err;
      logger.warn({ message: 'turn transaction failed; retrying', attempt });
      await new Promise((r) => setTimeout(r, 50 + Math.random() * Math.min(2000, 100 * 2 ** attempt)));
    }
  }
}
