import { auditedEndpoint } from '../../lib/http/endpoint';
import { updateMember } from '../../lib/teams/service';
import { MemberPath, UpdateMemberBody } from '../../generated/checks/teams';

/** PATCH /api/teams/{teamId}/members/{userId}: the team's owners and admins change a member's role or budget. */
export const handler = auditedEndpoint(
  { auth: 'user', path: MemberPath, body: UpdateMemberBody, audit: { action: 'team.member.update' } },
  async ({ path, body, user }) => updateMember(user, path.teamId, path.userId, body),
);
