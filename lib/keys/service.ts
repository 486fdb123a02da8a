import { randomUUID } from 'node:crypto';
import { monthOf, readSpend, setBudget } from '../../tables/budgets';
import { pendingCallsOf, pendingSpend } from '../../tables/calls';
import { getApiKeyRecord, insertApiKeyRecord, listApiKeyRecords, updateApiKeyRecord, type ApiKey, type ApiKeyPatch } from '../../tables/keys';
import { getResource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { newKeySecret } from '../auth/api-keys';
import { BadRequest, Forbidden, NotFound } from '../errors';

/**
 * API keys (issue 14): a user's own keys for the OpenAI-compatible gateway. The secret is shown once,
 * in the answer to POST, and stored only as its hash (tables/keys.ts). A user sees and manages only
 * their own keys; admins can list (`scope=all`) and revoke any key. Every action is audited by its
 * endpoint.
 */

export interface NewKey {
  name: string;
  monthly_budget_usd?: number;
  expires_at?: string;
  resource_ids?: string[];
}

export type KeyChanges = Partial<{ name: string; monthly_budget_usd: number | null; expires_at: string | null; resource_ids: string[] | null }>;

/** A key as every answer shows it: never the secret or its hash, with this month's spend. */
export interface PublicKey extends ApiKey {
  spent_usd: number;
}

const isAdmin = (user: User) => user.role === 'admin' || user.role === 'super_admin';

function checkExpiry(expiresAt: string | null | undefined, now: Date): void {
  if (expiresAt == null) return;
  if (Date.parse(expiresAt) <= now.getTime()) throw new BadRequest("Invalid field 'expires_at': must be in the future");
}

async function checkResources(ids: string[] | null | undefined): Promise<void> {
  if (!ids) return;
  const found = await Promise.all(ids.map((id) => getResource(id)));
  const missing = ids.filter((_, i) => !found[i]);
  if (missing.length > 0) throw new BadRequest("Invalid field 'resource_ids': no such resource", missing.join(', '));
}

/**
 * The keys with this month's spend: their spend items, plus the viewer's own calls answered and not
 * settled yet (tables/calls.ts), so a caller sees a call's cost on their key at once.
 */
async function withSpend(keys: ApiKey[], viewer: User, now: Date): Promise<PublicKey[]> {
  if (keys.length === 0) return [];
  const month = monthOf(now);
  const [spend, pending] = await Promise.all([
    readSpend(
      keys.map((k) => ({ kind: 'key', id: k.id })),
      month,
    ),
    keys.some((k) => k.user_id === viewer.id) ? pendingCallsOf(viewer.id) : [],
  ]);
  return keys.map((k) => {
    const owner = { kind: 'key', id: k.id } as const;
    const unsettled = k.user_id === viewer.id ? pendingSpend(pending, owner, month) : 0;
    return { ...k, spent_usd: Math.round((spend(owner).spent_usd + unsettled) * 1e6) / 1e6 };
  });
}

export async function createKey(user: User, input: NewKey, now = new Date()): Promise<PublicKey & { key: string }> {
  checkExpiry(input.expires_at, now);
  await checkResources(input.resource_ids);
  const { secret, prefix, hash } = newKeySecret();
  const key: ApiKey = {
    id: randomUUID(),
    user_id: user.id,
    name: input.name,
    prefix,
    created_at: now.toISOString(),
    expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    monthly_budget_usd: input.monthly_budget_usd ?? null,
    resource_ids: input.resource_ids ? [...new Set(input.resource_ids)] : null,
    revoked_at: null,
  };
  await insertApiKeyRecord(key, hash);
  return { ...key, key: secret, spent_usd: 0 };
}

export async function listKeys(user: User, query: { scope?: 'all' | 'user'; limit: number; cursor?: string }, now = new Date()) {
  if (query.scope === 'all' && !isAdmin(user)) throw new Forbidden('Admin privileges required');
  const { keys, nextCursor } = await listApiKeyRecords(query.scope === 'all' ? 'all' : { userId: user.id }, query.limit, query.cursor);
  return { success: true, keys: await withSpend(keys, user, now), nextCursor };
}

/** The key, if the caller may act on it: their own, or (`adminToo`) any key for an admin. Others' keys are "not found". */
async function keyOf(user: User, id: string, adminToo: boolean): Promise<ApiKey> {
  const key = await getApiKeyRecord(id);
  if (!key || (key.user_id !== user.id && !(adminToo && isAdmin(user)))) throw new NotFound('API key not found');
  return key;
}

export async function updateKey(user: User, id: string, changes: KeyChanges, now = new Date()) {
  await keyOf(user, id, false);
  checkExpiry(changes.expires_at, now);
  await checkResources(changes.resource_ids);
  const patch: ApiKeyPatch = { ...changes };
  if (changes.expires_at) patch.expires_at = new Date(changes.expires_at).toISOString();
  const key = await updateApiKeyRecord(id, patch);
  if (changes.monthly_budget_usd !== undefined) await setBudget({ kind: 'key', id }, monthOf(now), changes.monthly_budget_usd);
  return { success: true, key: (await withSpend([key], user, now))[0] };
}

/** Revokes a key at once: the next call with it is refused. Revoking a revoked key changes nothing. */
export async function revokeKey(user: User, id: string, now = new Date()) {
  const current = await keyOf(user, id, true);
  const key = current.revoked_at ? current : await updateApiKeyRecord(id, { revoked_at: now.toISOString() });
  return { success: true, key: (await withSpend([key], user, now))[0] };
}
