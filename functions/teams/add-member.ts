import { auditedEndpoint, replyAbout } from '../../lib/http/endpoint';
import { addMemberAs } from '../../lib/teams/service';
import { AddMemberBody, TeamPath } from '../../generated/checks/teams';

/** POST /api/teams/{teamId}/members: admins add a member directly (owners invite: POST .../invitations). */
export const handler = auditedEndpoint(
  {
    auth: 'user',
    path: TeamPath,
    body: AddMemberBody,
    // A refusal names the user as the request did; a success, as resolved (a username becomes its user's id).
    audit: { action: 'team.member.add', target: ({ path, body }) => `${path.teamId}/${body.user_id ?? body.username}` },
  },
  async ({ path, body, user }) => {
    const answer = await addMemberAs(user, path.teamId, body);
    return replyAbout(`${path.teamId}/${answer.member.user_id}`, 201, answer);
  },
);
