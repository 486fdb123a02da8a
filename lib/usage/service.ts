import { BadRequest, Forbidden } from '../http/errors';
import { conversationFromItem, conversationKey, getItems } from '../../tables/conversations';
import { usageFromItems, usageKeys, type UsageScope } from '../../tables/usage';
import type { User } from '../../tables/users';
import { readableConversation } from '../conversations/access';

export interface UsageQuery {
  conversationId?: string;
  scope?: 'all' | 'user';
}

/**
 * GET /api/usage/current (spec 4.6): month-to-date and last-24-hours figures of a conversation, of
 * the caller, or (admins) of the whole service. One BatchGet of fixed keys (the conversation, when
 * asked for, the month bucket and 25 hour buckets), so the cost does not grow with the history.
 */
export async function currentUsage(user: User, query: UsageQuery, now = new Date()) {
  let scope: UsageScope;
  if (query.scope === 'all') {
    if (query.conversationId) throw new BadRequest("Pass either 'conversationId' or scope=all, not both");
    if (user.role !== 'admin' && user.role !== 'super_admin') throw new Forbidden('Admin privileges required');
    scope = { kind: 'all' };
  } else if (query.conversationId) {
    scope = { kind: 'conversation', id: query.conversationId };
  } else {
    scope = { kind: 'user', id: user.id };
  }

  const keys = usageKeys(scope, now);
  if (scope.kind === 'conversation') keys.push(conversationKey(scope.id));
  const items = await getItems(keys);
  if (scope.kind === 'conversation') {
    const conversation = items(conversationKey(scope.id));
    readableConversation(conversation ? conversationFromItem(conversation) : undefined, user);
  }
  const { mtd, last24h } = usageFromItems(scope, now, items);
  return { success: true, scope: scope.kind, mtd, last24h };
}
