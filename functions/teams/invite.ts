import { auditedEndpoint, replyAbout } from '../../lib/http/endpoint';
import { invite } from '../../lib/teams/invitations';
import { AddMemberBody, TeamPath } from '../../generated/checks/teams';

/** POST /api/teams/{teamId}/invitations: the team's owners and admins invite a user, who joins only by accepting. */
export const handler = auditedEndpoint(
  {
    auth: 'user',
    path: TeamPath,
    body: AddMemberBody,
    audit: { action: 'team.invitation.create', target: ({ path, body }) => `${path.teamId}/${body.user_id ?? body.username}` },
  },
  async ({ path, body, user }) => {
    const { answer, subject } = await invite(user, path.teamId, body);
    return replyAbout(subject, 201, answer);
  },
);
