import { endpoint } from '../../lib/http/endpoint';
import { listMyInvitations } from '../../lib/teams/invitations';
import { ListInvitationsQuery } from '../../generated/checks/teams';

/** GET /api/teams/invitations: the caller's own pending invitations. */
export const handler = endpoint({ auth: 'user', query: ListInvitationsQuery }, async ({ query, user }) => listMyInvitations(user, query));
