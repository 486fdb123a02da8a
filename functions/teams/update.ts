import { auditedEndpoint } from '../../lib/http/endpoint';
import { updateTeam } from '../../lib/teams/service';
import { TeamPath, UpdateTeamBody } from '../../generated/checks/teams';

/** PATCH /api/teams/{teamId} (admin): the team's name, budget or limits. */
export const handler = auditedEndpoint(
  { auth: 'admin', path: TeamPath, body: UpdateTeamBody, audit: { action: 'team.update' } },
  async ({ path, body, user }) => updateTeam(user, path.teamId, body),
);
