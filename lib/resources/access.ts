import { getTrackedResource, setResourceAccess, type Resource, type ResourceAccess } from '../../tables/resources';
import { getTeams } from '../../tables/teams';
import { getUsers, type User } from '../../tables/users';
import { accessOf, isAdminRole } from '../calls/access';
import { NotFound } from '../errors';

/**
 * Who may use a resource, as admins read and set it (the decision itself is lib/calls/access.ts,
 * where every model call asks). Admins and super_admins may always use every resource; the access
 * says who else may: everyone, or the users and the members of the teams listed.
 */

/** PUT /api/resources/{resourceId}/access's input. */
export interface AccessUpdate {
  everyone: boolean;
  user_ids: string[];
  team_ids: string[];
}

/**
 * What an admin sees of a resource's access in a listing: the setting, and whether it is the
 * platform's default (no admin has set it).
 */
export function accessSetting(resource: Pick<Resource, 'type' | 'access'>) {
  const access = accessOf(resource);
  return {
    everyone: access.everyone,
    user_ids: access.user_ids,
    team_ids: access.team_ids,
    default: !access.updated_at,
    updated_at: access.updated_at ?? null,
    updated_by: access.updated_by ?? null,
  };
}

/**
 * What an admin sees of one resource's access (its status, the PUT's answer): the setting with the
 * users' and teams' names, null for one deleted since it was granted (it grants nothing any more).
 */
export async function accessView(resource: Pick<Resource, 'type' | 'access'>) {
  const setting = accessSetting(resource);
  const [users, teams] = await Promise.all([getUsers(setting.user_ids), getTeams(setting.team_ids)]);
  return {
    ...setting,
    users: setting.user_ids.map((id) => ({ id, username: users.get(id)?.username ?? null })),
    teams: setting.team_ids.map((id) => ({ id, name: teams.get(id)?.name ?? null })),
  };
}

/**
 * PUT /api/resources/{resourceId}/access: replaces who may use the resource. Every user and team named
 * must exist (404 naming the first that does not), so a typo cannot grant nothing silently. Takes
 * effect on the next call: every call reads the resource item (the gateway eventually consistent, so
 * on /v1 within about a second).
 */
export async function setAccess(id: string, input: AccessUpdate, admin: Pick<User, 'username'>, now = new Date()) {
  const [resource, users, teams] = await Promise.all([getTrackedResource(id), getUsers(input.user_ids), getTeams(input.team_ids)]);
  if (!resource) throw new NotFound('Resource not found');
  const missingUser = input.user_ids.find((u) => !users.has(u));
  if (missingUser) throw new NotFound(`User not found: ${missingUser}`, { param: 'user_ids' });
  const missingTeam = input.team_ids.find((t) => !teams.has(t) || teams.get(t)?.deleting_since);
  if (missingTeam) throw new NotFound(`Team not found: ${missingTeam}`, { param: 'team_ids' });

  const access: ResourceAccess = {
    everyone: input.everyone,
    user_ids: input.user_ids,
    team_ids: input.team_ids,
    updated_at: now.toISOString(),
    updated_by: admin.username,
  };
  const updated = await setResourceAccess(id, access);
  if (!updated) throw new NotFound('Resource not found');
  const who = access.everyone
    ? 'every user'
    : access.user_ids.length + access.team_ids.length === 0
      ? 'admins only'
      : `admins, ${access.user_ids.length} user(s) and the members of ${access.team_ids.length} team(s)`;
  return {
    message: `"${updated.name}" may now be used by ${who}`,
    resourceId: id,
    access: await accessView(updated),
  };
}

/** Whether a caller sees who may use resources (admins do, in the status and the listing). */
export const seesAccess = (user: Pick<User, 'role'>) => isAdminRole(user.role);
