import { pendingCallsOf, usageDeltaOf, type MeteredCall } from '../../tables/calls';
import { getApiKeyRecord } from '../../tables/keys';
import { readConversationUsage, readUsage, sessionScope, type Unsettled } from '../../tables/usage';
import type { User } from '../../tables/users';
import { BadRequest, Forbidden, NotFound } from '../errors';
import { readableConversation } from '../conversations/access';
import { teamAccess } from '../teams/service';

export interface UsageQuery {
  conversationId?: string;
  keyId?: string;
  teamId?: string;
  scope?: 'all' | 'user';
  session?: string;
}

/**
 * A user's gateway calls answered and not settled yet (tables/calls.ts: a second or so behind, or more
 * while the stream is behind), as uses to count: the caller reads their own calls at once. `keyId`
 * keeps one key's.
 */
export async function unsettledCalls(userId: string | Promise<MeteredCall[]>, keyId?: string, teamId?: string): Promise<Unsettled[]> {
  const calls = await (typeof userId === 'string' ? pendingCallsOf(userId) : userId);
  return calls
    .filter((c) => !keyId || c.keyId === keyId)
    .filter((c) => !teamId || c.scopes.some((s) => s.kind === 'team' && s.id === teamId))
    .map((c) => ({ at: new Date(c.answeredAt), delta: usageDeltaOf(c) }));
}

/**
 * GET /api/usage/current (docs/openapi.yaml currentUsage): month-to-date and last-24-hours figures of a conversation, of
 * the caller, of one of the caller's API keys (admins: any key), of one of the caller's teams (admins:
 * any team), of one of the caller's client sessions (`session`: Claude Code's session id), or (admins)
 * of the whole service: one read (tables/usage.ts), whose cost does not grow
 * with the history.
 */
export async function currentUsage(user: User, query: UsageQuery, now = new Date()) {
  if (query.session !== undefined) {
    if (query.teamId || query.keyId || query.conversationId || query.scope) {
      throw new BadRequest("Pass 'session' alone, without 'teamId', 'keyId', 'conversationId' or 'scope'");
    }
    // A session is the caller's own (its scope is keyed by their id): its settled calls are in its hour
    // items, the ones not settled yet (a second or so) are added from the caller's pending calls.
    const session = query.session;
    const pending = pendingCallsOf(user.id).then((calls) => calls.filter((c) => c.session === session));
    return { scope: 'session', session, ...(await readUsage(sessionScope(user.id, session), now, unsettledCalls(pending))) };
  }
  if (query.teamId) {
    if (query.keyId || query.conversationId || query.scope) throw new BadRequest("Pass 'teamId' alone, without 'keyId', 'conversationId' or 'scope'");
    // A team's figures are shared: its settled calls and every member's chat turns are in its hour
    // items; of the calls not settled yet (a second or so), the caller's own are added, so the caller
    // reads their own writes. Members and admins only (anyone else: 404, as for the team itself).
    const mine = unsettledCalls(user.id, undefined, query.teamId);
    mine.catch(() => undefined);
    const [, usage] = await Promise.all([teamAccess(user, query.teamId), readUsage({ kind: 'team', id: query.teamId }, now, mine)]);
    return { scope: 'team', ...usage };
  }
  if (query.keyId) {
    if (query.conversationId || query.scope) throw new BadRequest("Pass 'keyId' alone, without 'conversationId' or 'scope'");
    // The key's unsettled calls are its owner's: read beside it when the caller owns it (the usual case),
    // after it for an admin reading another user's key.
    const record = getApiKeyRecord(query.keyId);
    const mine = pendingCallsOf(user.id);
    mine.catch(() => undefined);
    const owners = record.then((k) => (!k ? [] : k.user_id === user.id ? mine : pendingCallsOf(k.user_id)));
    const [key, usage] = await Promise.all([record, readUsage({ kind: 'key', id: query.keyId }, now, unsettledCalls(owners, query.keyId))]);
    // Another user's key is as unknown as a key that does not exist; admins read any key's figures.
    if (!key || (key.user_id !== user.id && user.role !== 'admin' && user.role !== 'super_admin')) throw new NotFound('API key not found');
    return { scope: 'key', ...usage };
  }
  if (query.scope === 'all') {
    if (query.conversationId) throw new BadRequest("Pass either 'conversationId' or scope=all, not both");
    if (user.role !== 'admin' && user.role !== 'super_admin') throw new Forbidden('Admin privileges required');
    return { scope: 'all', ...(await readUsage({ kind: 'all' }, now)) };
  }
  if (query.conversationId) {
    const { conversation, usage } = await readConversationUsage(query.conversationId, now);
    readableConversation(conversation, user);
    return { scope: 'conversation', ...usage };
  }
  return { scope: 'user', ...(await readUsage({ kind: 'user', id: user.id }, now, unsettledCalls(user.id))) };
}
