import { auditedEndpoint } from '../../lib/http/endpoint';
import { deleteTeam } from '../../lib/teams/service';
import { TeamPath } from '../../generated/checks/teams';

/** DELETE /api/teams/{teamId} (admin): refused while the team has active keys. */
export const handler = auditedEndpoint({ auth: 'admin', path: TeamPath, audit: { action: 'team.delete' } }, async ({ path, user }) =>
  deleteTeam(user, path.teamId),
);
