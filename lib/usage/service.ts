import { readConversationUsage, readUsage } from '../../tables/usage';
import type { User } from '../../tables/users';
import { BadRequest, Forbidden } from '../http/errors';
import { readableConversation } from '../conversations/access';

export interface UsageQuery {
  conversationId?: string;
  scope?: 'all' | 'user';
}

/**
 * GET /api/usage/current (spec 4.6): month-to-date and last-24-hours figures of a conversation, of
 * the caller, or (admins) of the whole service: one read (tables/usage.ts), whose cost does not grow
 * with the history.
 */
export async function currentUsage(user: User, query: UsageQuery, now = new Date()) {
  if (query.scope === 'all') {
    if (query.conversationId) throw new BadRequest("Pass either 'conversationId' or scope=all, not both");
    if (user.role !== 'admin' && user.role !== 'super_admin') throw new Forbidden('Admin privileges required');
    return { success: true, scope: 'all', ...(await readUsage({ kind: 'all' }, now)) };
  }
  if (query.conversationId) {
    const { conversation, usage } = await readConversationUsage(query.conversationId, now);
    readableConversation(conversation, user);
    return { success: true, scope: 'conversation', ...usage };
  }
  return { success: true, scope: 'user', ...(await readUsage({ kind: 'user', id: user.id }, now)) };
}
