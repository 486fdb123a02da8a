import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { MetricUnit, dimensionedMetric, logger } from '../../core/observability';
import { release } from '../../tables/budgets';
import { messagesOfTurn, type NewTurn, type StoredMessage } from '../../tables/messages';
import type { Resource } from '../../tables/resources';
import { readTurnContext, recordFailedTurn, recordTurn } from '../../tables/turns';
import type { User } from '../../tables/users';
import { BadRequest, Conflict, NotFound } from '../http/errors';
import { withStatus, type ChatReply, type ChatRequest, type EndpointDescription } from '../platforms/types';
import { getTokenPrice, storedPrices, tokenCost } from '../pricing/service';
import { writableConversation } from '../conversations/access';
import { promptTokenBound, reserveAll, settlesOf, type Budget } from '../budgets/reservations';
import { buildContext } from './context';
import { MAX_MESSAGE_CHARS } from './limits';
import { chatBinding, describeEndpoint, systemPrompt } from './platforms';

/**
 * One chat turn, thread or legacy, in at most three sequential DynamoDB round trips (four for a user
 * with a monthly budget: the reservation before the model call):
 *
 *   1. the caller's user item (the authentication middleware);
 *   2. the turn's context (tables/turns.ts readTurnContext: the conversation, the resource, the
 *      thread and its newest messages), with the price table alongside when the per-container
 *      price cache is cold;
 *   3. after the model has answered: the turn's one write (tables/turns.ts recordTurn): the turn item
 *      and the caller's and the conversation's usage counters (and, for a user with a monthly budget,
 *      their spend item), in one transaction of the caller's own items. The service-wide and per-model totals and the resource's chat counters are folded from
 *      the table's stream (lib/usage/aggregator.ts), so concurrent turns of different users never
 *      touch the same item.
 *
 * Writing nothing before the model answers means a failed model call leaves no half turn and counts
 * nothing; writing the turn and its counters in one transaction means a counted turn always has its
 * messages and a stored turn is always counted. A failed call costs one extra write: the user's
 * message, kept and marked failed so their text is not lost.
 */

export { MAX_MESSAGE_CHARS };

export interface TurnRequest {
  user: User;
  conversationId: string;
  resourceId: string;
  message: string;
  /** 'thread' with a threadId continues it; without one starts a new thread. 'legacy' has no context. */
  mode: 'thread' | 'legacy';
  threadId?: string;
}

export interface TurnResult {
  threadId: string | null;
  userMessage: StoredMessage;
  assistantMessage: StoredMessage;
  resource: Resource;
}

function checkMessage(message: string | undefined): string {
  if (typeof message !== 'string' || message.trim() === '') throw new BadRequest("Missing required field 'message'");
  if (message.length > MAX_MESSAGE_CHARS) {
    throw new BadRequest(`Invalid field 'message': at most ${MAX_MESSAGE_CHARS} characters are allowed`, `Received ${message.length}`);
  }
  return message;
}

function notInService(resource: Resource, live: EndpointDescription | undefined): never {
  if (!live)
    throw new NotFound(
      'Resource not found on the platform',
      `The endpoint '${resource.endpoint_name}' no longer exists; it may have been deleted externally`,
    );
  throw new Conflict(
    `Resource '${resource.name}' is not InService (status: ${live.status})`,
    'Chat is possible once the resource is InService again; poll its status endpoint',
  );
}

/**
 * Refuses a resource that cannot answer now, before any model call. The stored status of a dedicated
 * resource may be stale (it changes on the platform), so a stored status other than InService is
 * checked against the platform before refusing.
 */
async function ensureInService(resource: Resource): Promise<void> {
  if (resource.status === 'InService') return;
  if (resource.type !== 'dedicated') {
    throw new Conflict(`Resource '${resource.name}' is not InService (status: ${resource.status})`);
  }
  const live = await describeEndpoint(resource).catch((err: unknown) => withStatus(err, 500));
  if (live?.status !== 'InService') notInService(resource, live);
}

export async function chatTurn(request: TurnRequest): Promise<TurnResult> {
  const { user, conversationId, resourceId, mode } = request;
  const content = checkMessage(request.message);
  const started = new Date();
  const turnTs = started.toISOString();
  const turnId = randomUUID();
  const continuing = mode === 'thread' && request.threadId !== undefined;
  const threadId = mode === 'thread' ? (request.threadId ?? randomUUID()) : null;

  // Round trip 2: everything the turn needs to know, read at once.
  const [context] = await Promise.all([
    readTurnContext({
      conversationId,
      resourceId,
      threadId: continuing ? (threadId as string) : undefined,
      recentTurns: config.chat.contextTurns,
    }),
    // Warms the price cache alongside, so pricing the turn later needs no round trip of its own.
    storedPrices().catch(() => undefined),
  ]);

  writableConversation(context.conversation, user);
  const resource = context.resource;
  if (!resource) throw new NotFound('Resource not found');
  if (continuing && !context.threadFound) throw new NotFound('Thread not found');
  const recent = context.recent;
  await ensureInService(resource);

  const { platform, target } = chatBinding(resource);
  const usageModelId = resource.model_id || resource.endpoint_name;
  const price = resource.type === 'dedicated' ? undefined : getTokenPrice(resource.type, resource.model_id);
  price?.catch(() => undefined); // awaited below; never an unhandled rejection if the model fails first

  const turn: NewTurn = {
    source: mode,
    conversationId,
    threadId,
    turnId,
    startedAt: turnTs,
    username: user.username,
    resourceId: resource.id,
    userText: content,
  };

  const history = mode === 'thread' ? buildContext(recent, config.chat.contextTurns, config.chat.contextTokenBudget) : [];
  const modelRequest: ChatRequest = {
    target,
    system: systemPrompt(resource),
    messages: [...history, { role: 'user', content }],
    maxTokens: config.chat.maxOutputTokens,
  };
  // A user with a monthly budget (set by an admin) spends it here as on the gateway: an upper bound of
  // the turn's cost is reserved before the model is asked. Dedicated endpoints bill by the hour: free.
  const budgets: Budget[] = user.monthly_budget_usd === null ? [] : [{ owner: { kind: 'user', id: user.id }, budgetUsd: user.monthly_budget_usd }];
  const bound = budgets.length > 0 && price ? tokenCost(await price, promptTokenBound(modelRequest), config.chat.maxOutputTokens) : 0;
  const reservations = bound > 0 ? await reserveAll(budgets, bound, turnId, started, () => 'Your monthly budget cannot cover this message') : [];

  let reply: ChatReply;
  try {
    reply = await platform.chat(modelRequest);
  } catch (err) {
    await Promise.all(reservations.map(release));
    await keepFailedTurn(turn, err);
    if (resource.type === 'dedicated') {
      // A dedicated endpoint may have left service since its status was stored: say so (409/404)
      // rather than reporting a model failure.
      const live = await describeEndpoint(resource).catch(() => 'unknown' as const);
      if (live !== 'unknown' && live?.status !== 'InService') notInService(resource, live);
    }
    return withStatus(err, 500);
  }

  const tokensIn = Math.max(0, Math.round(reply.tokensIn));
  const tokensOut = Math.max(0, Math.round(reply.tokensOut));
  const latencyMs = Math.max(0, Math.round(reply.latencyMs));
  turn.reply = {
    text: reply.content,
    answeredAt: new Date().toISOString(),
    modelId: reply.modelId || usageModelId,
    tokensIn,
    tokensOut,
    latencyMs,
    platform: resource.type,
    usageModelId,
    // Dedicated endpoints are paid by the hour (their status shows it), not per token.
    costUsd: price ? tokenCost(await price, tokensIn, tokensOut) : 0,
  };

  // Round trip 3.
  await recordTurn(
    { turn, userId: user.id, startsThread: mode === 'thread' && !continuing },
    settlesOf(budgets, reservations, started, turn.reply.costUsd),
  );
  // Counted once the turn is recorded, so the metrics agree with the usage figures.
  const dimension = { platform: resource.type };
  dimensionedMetric('ChatTurns', dimension, 1);
  dimensionedMetric('TokensIn', dimension, tokensIn);
  dimensionedMetric('TokensOut', dimension, tokensOut);
  dimensionedMetric('ModelLatency', dimension, latencyMs, MetricUnit.Milliseconds);
  const [userMessage, assistantMessage] = messagesOfTurn(turn) as [StoredMessage, StoredMessage];
  return { threadId, userMessage, assistantMessage, resource };
}

async function keepFailedTurn(turn: NewTurn, cause: unknown): Promise<void> {
  logger.warn({ message: 'model call failed; keeping the user message as failed', reason: (cause as Error)?.message, turnId: turn.turnId });
  try {
    await recordFailedTurn(turn);
  } catch (err) {
    // The model failure is what the caller hears about; losing this write is logged loudly.
    logger.error({ message: 'could not keep the failed user message', error: err as Error, turnId: turn.turnId });
  }
}
