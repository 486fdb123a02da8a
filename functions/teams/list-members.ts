import { endpoint } from '../../lib/http/endpoint';
import { listMembers } from '../../lib/teams/service';
import { ListMembersQuery, TeamPath } from '../../generated/checks/teams';

/** GET /api/teams/{teamId}/members: the roster, for the team's members and admins. */
export const handler = endpoint({ auth: 'user', path: TeamPath, query: ListMembersQuery }, async ({ path, query, user }) =>
  listMembers(user, path.teamId, query),
);
