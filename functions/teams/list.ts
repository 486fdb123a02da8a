import { endpoint } from '../../lib/http/endpoint';
import { listTeams } from '../../lib/teams/service';
import { ListTeamsQuery } from '../../generated/checks/teams';

/** GET /api/teams: admins see every team, anyone else their own. */
export const handler = endpoint({ auth: 'user', query: ListTeamsQuery }, async ({ query, user }) => listTeams(user, query));
