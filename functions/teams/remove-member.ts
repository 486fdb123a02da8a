import { auditedEndpoint } from '../../lib/http/endpoint';
import { removeMemberAs } from '../../lib/teams/service';
import { MemberPath } from '../../generated/checks/teams';

/** DELETE /api/teams/{teamId}/members/{userId}: owners and admins remove a member, a member leaves; their team keys are revoked. */
export const handler = auditedEndpoint({ auth: 'user', path: MemberPath, audit: { action: 'team.member.remove' } }, async ({ path, user }) =>
  removeMemberAs(user, path.teamId, path.userId),
);
