import { auditedEndpoint, replyAbout } from '../../lib/http/endpoint';
import { endInvitation } from '../../lib/teams/invitations';
import { InvitationPath } from '../../generated/checks/teams';

/** POST /api/teams/{teamId}/invitations/{invitationId}/decline: the invited user says no. */
export const handler = auditedEndpoint(
  { auth: 'user', path: InvitationPath, audit: { action: 'team.invitation.decline' } },
  async ({ path, user }) => {
    const { answer, subject } = await endInvitation(user, path.teamId, path.invitationId, 'invitee');
    return replyAbout(subject, 200, answer);
  },
);
