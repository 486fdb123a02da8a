import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { addMemberAs } from '../../lib/teams/service';
import { AddMemberBody, TeamPath } from '../../generated/checks/teams';

/** POST /api/teams/{teamId}/members: the team's owners and admins add a member. */
export const handler = auditedEndpoint(
  {
    auth: 'user',
    path: TeamPath,
    body: AddMemberBody,
    audit: { action: 'team.member.add', target: ({ path, body }) => `${path.teamId}/${body.user_id}` },
  },
  async ({ path, body, user }) => reply(201, await addMemberAs(user, path.teamId, body)),
);
