import type { PlatformName } from '../core/vocabulary';

/**
 * The partitions that hold more than one entity on purpose, so that one Query or BatchGet reads what
 * belongs together. Each entity module builds its own keys inside them from these primitives; no
 * entity imports another's key builders.
 *
 *   USER#<id>                         the user's profile (tables/users.ts, SK PROFILE) and their side of
 *                                     their team memberships (tables/teams.ts, SK TEAM#<teamId>): the
 *                                     call path reads it whole
 *   TEAM#<id>                         the team (META) and its members (tables/teams.ts), its invitations
 *                                     and their guards (tables/invitations.ts): they go with the team
 *   RESNAME#<platform>#<lower name>   the guard of a name /v1 accepts: a resource's on its platform
 *                                     (tables/resources.ts, `resourceId`), a route's on every platform
 *                                     (tables/routes.ts, `routeId`), so the two never share a name
 */
export const userPartition = (userId: string) => `USER#${userId}`;
/** The user's profile item's sort key in their partition. */
export const USER_PROFILE_SK = 'PROFILE';
export const teamPartition = (teamId: string) => `TEAM#${teamId}`;
export const nameGuardKey = (type: PlatformName, name: string) => ({ PK: `RESNAME#${type}#${name.toLowerCase()}`, SK: 'UNIQUE' });
