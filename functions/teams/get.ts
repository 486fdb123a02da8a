import { endpoint } from '../../lib/http/endpoint';
import { getTeamView } from '../../lib/teams/service';
import { TeamPath } from '../../generated/checks/teams';

/** GET /api/teams/{teamId}: the team, for its members and admins. */
export const handler = endpoint({ auth: 'user', path: TeamPath }, async ({ path, user }) => getTeamView(user, path.teamId));
