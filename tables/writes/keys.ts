import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../client';
import { apiKeyPuts, apiKeyUpdates, getApiKeyForChange, type ApiKey, type ApiKeyPatch } from '../keys';
import { DataError } from '../errors';
import { memberCheck, teamActiveKeysUpdate } from '../teams';
import { cancellationReasons } from '../transactions';

/**
 * An API key's writes that reach its team (tables/keys.ts: the key; tables/teams.ts: the team). A
 * team key is created only by a member of the team (a condition on the membership in the same
 * transaction) and counted in the team's `active_keys` until it is revoked (the count moves in the
 * revoking transaction), so a team is never deleted while a key can still spend on it.
 */

/**
 * Creates a key: its record and its lookup, in one transaction; a team key also its entry in the
 * team's list and the team's count, conditional on the owner being a member (409 otherwise).
 */
export async function insertApiKeyRecord(key: ApiKey, hash: string): Promise<void> {
  const team = key.team_id ? [memberCheck(key.team_id, key.user_id), teamActiveKeysUpdate(key.team_id, 1)] : [];
  const { own, teamEntry } = apiKeyPuts(key, hash);
  try {
    // The record and lookup, then the team's check and count (items 2 and 3 below), then the list entry.
    await db.send(new TransactWriteCommand({ TransactItems: [...own, ...team, ...teamEntry] }));
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (reasons?.[2] === 'ConditionalCheckFailed') throw new DataError('RuleViolation', 'You are not a member of this team');
    if (reasons?.[3] === 'ConditionalCheckFailed') throw new DataError('RuleViolation', 'The team is being deleted');
    throw err;
  }
}

/**
 * Changes a key's record and lookup together. Conditional on the key not being revoked: a revoked
 * key stays as it was revoked. The record holds the hash, so the lookup is found without the secret.
 * Revoking a team key takes it out of its team's count in the same transaction.
 */
export async function updateApiKeyRecord(id: string, patch: ApiKeyPatch & { revoked_at?: string }): Promise<ApiKey> {
  const stored = await getApiKeyForChange(id);
  if (!stored) throw new DataError('ItemNotFound', 'API key not found');
  const { key, hash } = stored;
  if (key.revoked_at) throw new DataError('RuleViolation', 'This API key has been revoked', 'A revoked key cannot be changed; create a new one');
  const fields = Object.entries(patch).filter(([, v]) => v !== undefined);
  if (fields.length === 0) return key;
  const leavesTeam = patch.revoked_at !== undefined && key.team_id !== null ? [teamActiveKeysUpdate(key.team_id, -1)] : [];
  try {
    await db.send(new TransactWriteCommand({ TransactItems: [...apiKeyUpdates(id, hash, fields), ...leavesTeam] }));
  } catch (err) {
    if (cancellationReasons(err)?.includes('ConditionalCheckFailed')) {
      throw new DataError('StaleWrite', 'This API key changed while it was being updated', 'Read it again and retry');
    }
    throw err;
  }
  return { ...key, ...Object.fromEntries(fields) };
}
