import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { createTeam } from '../../lib/teams/service';
import { CreateTeamBody } from '../../generated/checks/teams';

/** POST /api/teams (admin): a new team, with its budget and limits. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: CreateTeamBody, audit: { action: 'team.create', target: ({ body }) => body.name } },
  async ({ body }) => reply(201, { team: await createTeam(body) }),
);
