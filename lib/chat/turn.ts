import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { logger } from '../../core/observability';
import { messagesOfTurn, type NewTurn, type StoredMessage, type TurnReply } from '../../tables/messages';
import type { Resource } from '../../tables/resources';
import { readMemberships } from '../../tables/teams';
import { readTurnContext, recordFailedTurn, recordTurn } from '../../tables/writes/turns';
import type { User } from '../../tables/users';
import { attempt, type AttemptOptions } from '../calls/attempts';
import { answer, countCall, prepareCall, settlementOf, usageModelOf, type PreparedCall, type Settlement } from '../calls/metered';
import { routeTargetById, type CallTarget } from '../calls/resolve';
import { writableConversation } from '../conversations/access';
import { BadRequest, NotFound } from '../errors';
import { systemPromptFor } from '../platforms/prompts';
import type { CacheTokens, ChatReply } from '../platforms/types';
import { callCost, storedPrices } from '../pricing/service';
import { withHistoryCheckpoints } from './caching';
import { buildContext } from './context';
import { MAX_MESSAGE_CHARS } from './limits';

/**
 * One chat turn, thread or legacy: the spec's chat dialect over the one metered call
 * (lib/calls/metered.ts), storing the turn. In at most three sequential DynamoDB round trips (four when
 * a budget or rate limit applies: the one conditional write that holds them before the model call):
 *
 *   1. the caller's user item (the authentication middleware);
 *   2. the turn's context (tables/writes/turns.ts readTurnContext: the conversation, the resource, the
 *      thread and its newest messages) and the caller's team memberships (their budgets and limits),
 *      with the price table alongside when the per-container price cache is cold;
 *   3. after the model has answered: the turn's one write (tables/writes/turns.ts recordTurn): the turn item
 *      and the caller's and the conversation's usage counters (and, for a user with a monthly budget,
 *      their spend item), in one transaction of the caller's own items. The service-wide and per-model totals and the resource's chat counters are folded from
 *      the table's stream (lib/usage/aggregator.ts), so concurrent turns of different users never
 *      touch the same item.
 *
 * `resourceId` may name a route (docs/routes.md "Chat with a route"): read only when no resource has the
 * id (two more reads: the route item, then its targets' items with the route's cooldowns), the turn then goes
 * through the same attempts as a /v1 call (lib/calls/attempts.ts) and records the resource that
 * answered beside the route.
 *
 * Writing nothing before the model answers means a failed model call leaves no half turn and counts
 * nothing; writing the turn and its counters in one transaction means a counted turn always has its
 * messages and a stored turn is always counted. A failed call costs one extra write: the user's
 * message, kept and marked failed so their text is not lost.
 */

const systemPrompt = (resource: Resource) => systemPromptFor(resource.type, usageModelOf(resource)) || undefined;

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

export async function chatTurn(request: TurnRequest): Promise<TurnResult> {
  const { user, conversationId, resourceId, mode } = request;
  const content = checkMessage(request.message);
  const started = new Date();
  const turnTs = started.toISOString();
  const turnId = randomUUID();
  const continuing = mode === 'thread' && request.threadId !== undefined;
  const threadId = mode === 'thread' ? (request.threadId ?? randomUUID()) : null;

  // Round trip 2: everything the turn needs to know, read at once.
  const [context, memberships] = await Promise.all([
    readTurnContext({
      conversationId,
      resourceId,
      threadId: continuing ? (threadId as string) : undefined,
      recentTurns: config.chat.contextTurns,
    }),
    // The caller's teams: their budgets and limits count this turn too (lib/calls/levels.ts).
    readMemberships(user.id),
    // Warms the price cache alongside, so pricing the turn later needs no round trip of its own.
    storedPrices().catch(() => undefined),
  ]);

  writableConversation(context.conversation, user);
  // The id names a resource, or else a route: read only when no resource has it (lib/calls/resolve.ts).
  const target: CallTarget = context.resource ? { resource: context.resource } : await routeNamed(user, resourceId);
  if (continuing && !context.threadFound) throw new NotFound('Thread not found');

  const history = mode === 'thread' ? buildContext(context.recent, config.chat.contextTurns, config.chat.contextTokenBudget) : [];
  // Each target a route tries is its own metered call (lib/calls/attempts.ts): held, then released or
  // settled; its prompt is cached where its model caches (lib/chat/caching.ts).
  const prepare = (resource: Resource, how: AttemptOptions) => {
    const system = systemPrompt(resource);
    const messages = [...withHistoryCheckpoints(resource, system, history), { role: 'user' as const, content }];
    return prepareCall({ payer: { user, memberships }, resource, callId: turnId, now: started, request: { system, messages, ...how } });
  };

  const turn: NewTurn = {
    source: mode,
    conversationId,
    threadId,
    turnId,
    startedAt: turnTs,
    username: user.username,
    resourceId: target.route ? target.route.id : target.resource.id,
    ...(target.route && { route: { id: target.route.id, name: target.route.name } }),
    userText: content,
  };

  // A turn refused before any model was asked (access, a budget, not in service) stores nothing; once a
  // model was asked and no answer came, the user's message is kept, marked failed.
  let asked = false;
  const ask = (prepared: PreparedCall) => {
    asked = true;
    return answer(prepared);
  };
  let call: PreparedCall;
  let reply: ChatReply;
  try {
    ({ call, result: reply } = await attempt(target, prepare, ask));
  } catch (err) {
    if (asked) await keepFailedTurn(turn, err);
    throw err;
  }
  // The turn records the resource that answered; a route's turn names the route beside it.
  const resource = call.resource;
  turn.resourceId = resource.id;

  // Round trip 3: the turn and its counters, the user's spend settled when they have a budget.
  const settled = settlementOf(call, reply);
  turn.reply = {
    text: reply.content,
    answeredAt: settled.answeredAt,
    modelId: settled.modelId,
    tokensIn: settled.tokensIn,
    tokensOut: settled.tokensOut,
    latencyMs: settled.latencyMs,
    platform: resource.type,
    usageModelId: settled.usageModelId,
    cost: settled.cost,
    ...(settled.cache && { cache: cacheFigures(call, settled) }),
  };
  await recordTurn(
    { turn, userId: user.id, startsThread: mode === 'thread' && !continuing, teamIds: memberships.map((m) => m.team_id) },
    settled.settles,
    settled.rates,
  );
  countCall(call, settled, 'ChatTurns');
  const [userMessage, assistantMessage] = messagesOfTurn(turn) as [StoredMessage, StoredMessage];
  return { threadId, userMessage, assistantMessage, resource };
}

/** What the prompt cache served and stored for the turn, and what that part of its charge was (the same pricing as the whole). */
function cacheFigures(call: PreparedCall, settled: Settlement): NonNullable<TurnReply['cache']> {
  const cache = settled.cache as CacheTokens;
  const cost = call.price ? callCost(call.price, { tokensIn: 0, tokensOut: 0, cache, serviceTier: settled.serviceTier }) : 0;
  return { read: cache.read, write: cache.write5m + cache.write1h, cost };
}

async function routeNamed(user: User, id: string): Promise<CallTarget> {
  const target = await routeTargetById(user, id);
  if (!target) throw new NotFound('Resource not found');
  return target;
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
