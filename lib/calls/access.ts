import type { PlatformName } from '../../core/vocabulary';
import type { Resource, ResourceAccess } from '../../tables/resources';
import { listMemberships } from '../../tables/teams';
import type { User } from '../../tables/users';
import { Forbidden } from '../errors';
import { traitsOf } from '../platforms/registry';

/**
 * Who may call a resource's model. Every model call asks here (lib/calls/metered.ts prepareCall, and
 * for /v1 the model's lookup and listing, lib/calls/resolve.ts), so the rule exists once:
 *
 *   - admins and super_admins may always call any resource;
 *   - anyone else when the resource is open to everyone, names them, or names a team they are in.
 *
 * A resource whose access was never set follows its platform: a platform billed per token is open to
 * everyone (each call is priced and charged to its caller's budgets), a platform billed by the hour
 * (dedicated endpoints) is for admins only, since its calls cost the caller nothing while the
 * endpoint bills its owner by the hour and every call keeps it from its idle stop. That covers the
 * resources tracked before access existed too. A deploy writes the same default explicitly, and an
 * admin grants more with PUT /api/resources/{id}/access.
 */

export const EVERYONE: ResourceAccess = { everyone: true, user_ids: [], team_ids: [] };
export const ADMINS_ONLY: ResourceAccess = { everyone: false, user_ids: [], team_ids: [] };

/** What a new resource of a platform starts with, and what a resource never set follows. */
export const defaultAccess = (type: PlatformName): ResourceAccess => (traitsOf(type).billing === 'per-hour' ? ADMINS_ONLY : EVERYONE);

/** The access that applies to a resource: its own, or its platform's default. */
export const accessOf = (resource: Pick<Resource, 'type' | 'access'>): ResourceAccess => resource.access ?? defaultAccess(resource.type);

export const isAdminRole = (role: User['role']) => role === 'admin' || role === 'super_admin';

/**
 * The decision, pure. `teamIds`: the caller's teams, asked for only when the answer depends on them
 * (a resource granted to teams, to a caller it does not name), so most calls read nothing for it.
 */
export function mayUse(user: Pick<User, 'id' | 'role'>, access: ResourceAccess, teamIds?: () => ReadonlySet<string>): boolean {
  if (isAdminRole(user.role) || access.everyone || access.user_ids.includes(user.id)) return true;
  if (access.team_ids.length === 0 || !teamIds) return false;
  const mine = teamIds();
  return access.team_ids.some((id) => mine.has(id));
}

/** Whether the decision needs the caller's teams. */
const needsTeams = (user: Pick<User, 'id' | 'role'>, access: ResourceAccess) => !mayUse(user, access) && access.team_ids.length > 0;

/**
 * The caller's teams, read once per caller object (one request): a /v1 call asks when it resolves the
 * model and again in prepareCall, a listing for every resource. One strongly consistent Query of the
 * user's partition, so a member removed from a team loses its resources at once.
 */
const teamsRead = new WeakMap<object, Promise<ReadonlySet<string>>>();

async function readTeamIds(userId: string): Promise<ReadonlySet<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await listMemberships(userId, 100, cursor);
    for (const m of page.memberships) ids.add(m.team_id);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

function teamIdsOf(user: User): Promise<ReadonlySet<string>> {
  let read = teamsRead.get(user);
  if (!read) {
    read = readTeamIds(user.id);
    teamsRead.set(user, read);
    read.catch(() => teamsRead.delete(user));
  }
  return read;
}

/** Whether this caller may call these resources, each; the caller's teams are read at most once, and only if needed. */
export async function usableBy<R extends Pick<Resource, 'type' | 'access'>>(user: User, resources: R[]): Promise<R[]> {
  const teams = resources.some((r) => needsTeams(user, accessOf(r))) ? await teamIdsOf(user) : new Set<string>();
  return resources.filter((r) => mayUse(user, accessOf(r), () => teams));
}

/** Whether this caller may call this resource. */
export const mayCall = async (user: User, resource: Pick<Resource, 'type' | 'access'>): Promise<boolean> =>
  (await usableBy(user, [resource])).length === 1;

/** The refusal of a call the caller may not make: 403, naming the resource and who can grant it. */
const notAllowed = (resource: Pick<Resource, 'name'>) =>
  new Forbidden(`You may not use the resource '${resource.name}': ask an admin to grant you access to it`, { code: 'resource_access_denied' });

/** prepareCall's check: the payer may call the resource, or the call is refused before anything else. */
export async function ensureMayCall(user: User, resource: Resource): Promise<void> {
  if (!(await mayCall(user, resource))) throw notAllowed(resource);
}
