import { endpoint } from '../../lib/http/endpoint';
import { listInvitationsOfTeam } from '../../lib/teams/invitations';
import { ListInvitationsQuery, TeamPath } from '../../generated/checks/teams';

/** GET /api/teams/{teamId}/invitations: the team's pending invitations, for its owners and admins. */
export const handler = endpoint({ auth: 'user', path: TeamPath, query: ListInvitationsQuery }, async ({ path, query, user }) =>
  listInvitationsOfTeam(user, path.teamId, query),
);
