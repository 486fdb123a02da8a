import { getApiKeyRecord } from '../../tables/keys';
import { readConversationUsage, readUsage } from '../../tables/usage';
import type { User } from '../../tables/users';
import { BadRequest, Forbidden, NotFound } from '../errors';
import { readableConversation } from '../conversations/access';

export interface UsageQuery {
  conversationId?: string;
  keyId?: string;
  scope?: 'all' | 'user';
}

/**
 * GET /api/usage/current (spec 4.6): month-to-date and last-24-hours figures of a conversation, of
 * the caller, of one of the caller's API keys (admins: any key), or (admins) of the whole service: one read (tables/usage.ts), whose cost does not grow
 * with the history.
 */
export async function currentUsage(user: User, query: UsageQuery, now = new Date()) {
  if (query.keyId) {
    if (query.conversationId || query.scope) throw new BadRequest("Pass 'keyId' alone, without 'conversationId' or 'scope'");
    const [key, usage] = await Promise.all([getApiKeyRecord(query.keyId), readUsage({ kind: 'key', id: query.keyId }, now)]);
    // Another user's key is as unknown as a key that does not exist; admins read any key's figures.
    if (!key || (key.user_id !== user.id && user.role !== 'admin' && user.role !== 'super_admin')) throw new NotFound('API key not found');
    return { success: true, scope: 'key', ...usage };
  }
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
