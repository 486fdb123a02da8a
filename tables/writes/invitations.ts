import { consumeWrites, invitationGone, type Invitation } from '../invitations';
import { insertMember, type Member, type Team } from '../teams';

/**
 * Accepts an invitation: the membership (both sides, tables/teams.ts) is written and the invitation
 * deleted (tables/invitations.ts) in one transaction, conditional on the invitation being pending
 * and for `member.user_id`.
 */
export async function acceptInvitation(inv: Invitation, member: Member, now: string): Promise<Team> {
  return insertMember(member, { items: consumeWrites(inv, member.user_id, now), refused: invitationGone });
}
