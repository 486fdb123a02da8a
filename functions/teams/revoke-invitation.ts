import { auditedEndpoint, replyAbout } from '../../lib/http/endpoint';
import { endInvitation } from '../../lib/teams/invitations';
import { InvitationPath } from '../../generated/checks/teams';

/** DELETE /api/teams/{teamId}/invitations/{invitationId}: the team's owners and admins withdraw an invitation. */
export const handler = auditedEndpoint(
  { auth: 'user', path: InvitationPath, audit: { action: 'team.invitation.revoke' } },
  async ({ path, user }) => {
    const { answer, subject } = await endInvitation(user, path.teamId, path.invitationId, 'manager');
    return replyAbout(subject, 200, answer);
  },
);
