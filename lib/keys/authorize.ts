import { getKeyByHash, type ApiKey } from '../../tables/keys';
import { readUserWithMemberships, type Membership } from '../../tables/teams';
import { publicUser, type User } from '../../tables/users';
import { hashKeySecret, isWellFormedKey } from '../auth/api-keys';
import { Unauthorized } from '../errors';

const refuse = (message: string) => new Unauthorized(message, { code: 'invalid_api_key' });

/**
 * Whose key a secret is, once it has been seen: a key's owner never changes, so the mapping from the
 * secret's hash to the owner's id can be kept for the container's life. It lets the key's lookup and
 * the owner's read run side by side (one round trip) instead of one after the other. Bounded, oldest
 * forgotten first.
 */
const OWNERS_KEPT = 10_000;
const ownerOfHash = new Map<string, string>();

function remember(hash: string, userId: string): void {
  if (ownerOfHash.size >= OWNERS_KEPT) ownerOfHash.delete(ownerOfHash.keys().next().value as string);
  ownerOfHash.set(hash, userId);
}

/**
 * The credential a request presents. `authorization` is the Authorization header (OpenAI's clients:
 * `Bearer <key>`); `apiKey` is the x-api-key header, which Anthropic's clients send instead, and is
 * set only on the routes that speak Anthropic's API (elsewhere the header is ignored, so the OpenAI
 * routes keep OpenAI's wording).
 */
export interface PresentedKey {
  authorization?: string;
  apiKey?: string;
  /** Whether the route takes x-api-key: the refusals then name both ways of sending a key. */
  acceptsApiKeyHeader?: boolean;
}

/** The key itself, from x-api-key (where the route takes it) or else the bearer credential. */
function credentialOf({ authorization, apiKey, acceptsApiKeyHeader }: PresentedKey): string {
  if (acceptsApiKeyHeader && apiKey !== undefined) return apiKey.trim();
  if (!authorization) {
    throw refuse(
      acceptsApiKeyHeader
        ? 'Missing API key: send it as "x-api-key: mo_..." or "Authorization: Bearer mo_..."'
        : 'Missing API key: send it as "Authorization: Bearer mo_..."',
    );
  }
  const credential = /^Bearer +(\S+)$/i.exec(authorization.trim())?.[1];
  if (!credential) throw refuse('Malformed Authorization header: expected "Bearer <API key>"');
  return credential;
}

/**
 * The presented key, if it has the form of one of ours (refused otherwise). Costs no read, so a
 * request without a credential worth looking up causes none, whatever else it carries.
 */
export function wellFormedKey(presented: PresentedKey): string {
  const credential = credentialOf(presented);
  if (credential.split('.').length === 3) throw refuse('Login tokens are not accepted on /v1: create an API key (POST /api/keys) and use it');
  if (!isWellFormedKey(credential)) throw refuse('Incorrect API key provided');
  return credential;
}

/**
 * Who is calling /v1: the key presented (as a bearer credential, or in x-api-key where the route takes
 * it), and its owner as stored now with their team memberships (every budget and limit the call
 * counts against). A strongly consistent GetItem (the key's lookup by hash) and a strongly consistent
 * Query of the owner's partition (profile and memberships, tables/teams.ts: one read unit, as the
 * profile's GetItem was), side by side once the container has seen the key before, so a revoked or
 * expired key, a deactivated owner and a team key whose owner has left the team are refused from the
 * next call on. `presented` may be a key wellFormedKey has already accepted.
 */
export async function authorizeKey(
  presented: PresentedKey | string,
  now = new Date(),
): Promise<{ key: ApiKey; user: User; memberships: Membership[] }> {
  const credential = typeof presented === 'string' ? presented : wellFormedKey(presented);
  const hash = hashKeySecret(credential);
  const knownOwner = ownerOfHash.get(hash);
  const [key, prefetched] = await Promise.all([getKeyByHash(hash), knownOwner ? readUserWithMemberships(knownOwner) : undefined]);
  if (!key) throw refuse('Incorrect API key provided');
  remember(hash, key.user_id);
  if (key.revoked_at) throw refuse('This API key has been revoked');
  if (key.expires_at && Date.parse(key.expires_at) <= now.getTime()) throw refuse('This API key has expired');
  const { user, memberships } = prefetched?.user?.id === key.user_id ? prefetched : await readUserWithMemberships(key.user_id);
  if (!user?.is_active) throw refuse("This API key's owner is deactivated");
  // Removing a member revokes their team keys right after the membership goes: refused in between too.
  if (key.team_id && !memberships.some((m) => m.team_id === key.team_id)) throw refuse("This API key's owner is no longer a member of its team");
  return { key, user: publicUser(user), memberships };
}
