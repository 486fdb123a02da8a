import { setAlertThresholds } from '../../tables/alerts';
import { alertThresholdsOf, defaultAlertThresholds } from '../alerts/thresholds';
import { usdOf } from '../../core/money';
import { randomUUID } from 'node:crypto';
import { monthOf, readSpend, setBudget } from '../../tables/budgets';
import { pendingCallsOf, pendingSpend } from '../../tables/calls';
import { getApiKeyRecord, listApiKeyRecords, type ApiKey, type ApiKeyPatch } from '../../tables/keys';
import { insertApiKeyRecord, updateApiKeyRecord } from '../../tables/writes/keys';
import { getResource } from '../../tables/resources';
import { deleteKeysStoredResponses } from '../../tables/responses';
import { getTeamAndMember } from '../../tables/teams';
import type { User } from '../../tables/users';
import { newKeySecret } from '../auth/api-keys';
import { BadRequest, Forbidden, NotFound } from '../errors';
import { listTeamKeys } from '../teams/service';

/**
 * API keys (issue 14): a user's own keys for the OpenAI-compatible gateway. The secret is shown once,
 * in the answer to POST, and stored only as its hash (tables/keys.ts). A user sees and manages their
 * own keys; admins can list (`scope=all`) and revoke any key. A team key (`team_id`, issue 25) is
 * created by a member of the team and spends for the team; the team's owners (and admins) list
 * (`team_id=`), change and revoke it too. Every action is audited by its endpoint.
 */

export interface NewKey {
  name: string;
  monthly_budget_usd?: number;
  /** The budget's alert thresholds (tables/alerts.ts); absent or null: the default. */
  alert_thresholds?: number[] | null;
  expires_at?: string;
  resource_ids?: string[];
  team_id?: string;
  rpm_limit?: number;
  tpm_limit?: number;
  allowed_service_tiers?: NonNullable<ApiKey['allowed_service_tiers']>;
}

export type KeyChanges = Partial<{
  name: string;
  monthly_budget_usd: number | null;
  expires_at: string | null;
  resource_ids: string[] | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  allowed_service_tiers: ApiKey['allowed_service_tiers'];
  /** The budget's alert thresholds (tables/alerts.ts); null: the default. */
  alert_thresholds: number[] | null;
}>;

/** A key as every answer shows it: never the secret or its hash, with this month's spend and its budget's alert thresholds. */
export interface PublicKey extends ApiKey {
  spent_usd: number;
  alert_thresholds: number[];
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
  const owners = keys.map((k) => ({ kind: 'key', id: k.id }) as const);
  const [spend, pending, thresholds] = await Promise.all([
    readSpend(owners, month),
    keys.some((k) => k.user_id === viewer.id) ? pendingCallsOf(viewer.id) : [],
    alertThresholdsOf(owners),
  ]);
  return keys.map((k) => {
    const owner = { kind: 'key', id: k.id } as const;
    const unsettled = k.user_id === viewer.id ? pendingSpend(pending, owner, month) : 0;
    return { ...k, spent_usd: usdOf(spend(owner).spent + unsettled), alert_thresholds: thresholds(owner) };
  });
}

/** A team key's team must exist and count the caller as a member (others' teams are "no such team"). */
async function checkTeam(user: User, teamId: string | undefined): Promise<void> {
  if (!teamId) return;
  const { team, member } = await getTeamAndMember(teamId, user.id);
  if (!team || team.deleting_since || (!member && !isAdmin(user))) throw new BadRequest("Invalid field 'team_id': no such team");
  if (!member)
    throw new BadRequest("Invalid field 'team_id': you are not a member of this team", 'Only members create keys of a team; an admin adds you first');
}

export async function createKey(user: User, input: NewKey, now = new Date()): Promise<PublicKey & { key: string }> {
  checkExpiry(input.expires_at, now);
  await Promise.all([checkResources(input.resource_ids), checkTeam(user, input.team_id)]);
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
    team_id: input.team_id ?? null,
    rpm_limit: input.rpm_limit ?? null,
    tpm_limit: input.tpm_limit ?? null,
    allowed_service_tiers: input.allowed_service_tiers ? [...new Set(input.allowed_service_tiers)] : null,
  };
  await insertApiKeyRecord(key, hash);
  const thresholds = input.alert_thresholds ? await setAlertThresholds({ kind: 'key', id: key.id }, input.alert_thresholds) : null;
  return { ...key, key: secret, spent_usd: 0, alert_thresholds: thresholds ?? defaultAlertThresholds() };
}

export async function listKeys(user: User, query: { scope?: 'all' | 'user'; team_id?: string; limit: number; cursor?: string }, now = new Date()) {
  if (query.team_id) {
    if (query.scope)
      throw new BadRequest("Invalid query: 'scope' and 'team_id' cannot be combined", "team_id lists one team's keys; leave scope out");
    const { keys, nextCursor } = await listTeamKeys(user, query.team_id, query);
    return { keys: await withSpend(keys, user, now), nextCursor };
  }
  if (query.scope === 'all' && !isAdmin(user)) throw new Forbidden('Admin privileges required');
  const { keys, nextCursor } = await listApiKeyRecords(query.scope === 'all' ? 'all' : { userId: user.id }, query.limit, query.cursor);
  return { keys: await withSpend(keys, user, now), nextCursor };
}

/**
 * The key, if the caller may act on it: their own; a team key also for the team's owners and for
 * admins; and (`anyForAdmins`, revocation) any key for an admin. Others' keys are "not found".
 * `steward`: whether the caller may set a team key's bounds (below): an admin or an owner of its team.
 */
async function keyOf(user: User, id: string, anyForAdmins: boolean): Promise<{ key: ApiKey; steward: boolean }> {
  const key = await getApiKeyRecord(id);
  if (!key) throw new NotFound('API key not found');
  if (isAdmin(user)) {
    if (anyForAdmins || key.team_id || key.user_id === user.id) return { key, steward: true };
    throw new NotFound('API key not found');
  }
  const isOwner = key.team_id ? (await getTeamAndMember(key.team_id, user.id)).member?.role === 'owner' : false;
  if (key.user_id === user.id || isOwner) return { key, steward: isOwner };
  throw new NotFound('API key not found');
}

/**
 * What bounds a key's reach. On a team key they are the team's to set: its owners (and admins) may
 * change them, the member who holds the key may not, or a limit an owner put on a member's key would
 * last only until the member lifted it. The expiry counts: extending it lifts the owner's bound too.
 */
const BOUNDS = ['monthly_budget_usd', 'rpm_limit', 'tpm_limit', 'resource_ids', 'expires_at'] as const;

export async function updateKey(user: User, id: string, changes: KeyChanges, now = new Date()) {
  const { key: current, steward } = await keyOf(user, id, false);
  const bounds = BOUNDS.filter((field) => changes[field] !== undefined);
  if (current.team_id && !steward && bounds.length > 0) {
    throw new Forbidden(
      `Only the team's owners and admins change a team key's ${bounds.join(', ')}`,
      'Ask an owner of the team; you may rename the key or revoke it',
    );
  }
  checkExpiry(changes.expires_at, now);
  await checkResources(changes.resource_ids);
  const { alert_thresholds: thresholds, ...fields } = changes;
  const patch: ApiKeyPatch = { ...fields };
  if (changes.allowed_service_tiers) patch.allowed_service_tiers = [...new Set(changes.allowed_service_tiers)];
  if (changes.expires_at) patch.expires_at = new Date(changes.expires_at).toISOString();
  const key = Object.keys(patch).length ? await updateApiKeyRecord(id, patch) : current;
  if (changes.monthly_budget_usd !== undefined) await setBudget({ kind: 'key', id }, monthOf(now), changes.monthly_budget_usd);
  if (thresholds !== undefined) await setAlertThresholds({ kind: 'key', id }, thresholds);
  return { key: (await withSpend([key], user, now))[0] };
}

/**
 * Revokes a key at once: the next call with it is refused. The responses it stored (/v1/responses)
 * are its owner's data kept for the key, so they go with it. Revoking a revoked key changes nothing
 * (but deletes what a revocation interrupted before it was done may have left).
 */
export async function revokeKey(user: User, id: string, now = new Date()) {
  const { key: current } = await keyOf(user, id, true);
  const key = current.revoked_at ? current : await updateApiKeyRecord(id, { revoked_at: now.toISOString() });
  await deleteKeysStoredResponses(id);
  return { key: (await withSpend([key], user, now))[0] };
}
