import { auditedEndpoint, replyAbout } from '../../lib/http/endpoint';
import { accept } from '../../lib/teams/invitations';
import { InvitationPath } from '../../generated/checks/teams';

/** POST /api/teams/{teamId}/invitations/{invitationId}/accept: the invited user joins the team. */
export const handler = auditedEndpoint(
  { auth: 'user', path: InvitationPath, audit: { action: 'team.invitation.accept' } },
  async ({ path, user }) => {
    const { answer, subject } = await accept(user, path.teamId, path.invitationId);
    return replyAbout(subject, 200, answer);
  },
);
