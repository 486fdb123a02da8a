import { randomUUID } from 'node:crypto';
import {
  getInvitation,
  insertInvitation,
  listTeamInvitations,
  listUserInvitations,
  removeInvitation,
  type Invitation,
} from '../../tables/invitations';
import { acceptInvitation } from '../../tables/writes/invitations';
import { getTeamAndMember, getTeams, type TeamRole } from '../../tables/teams';
import type { User } from '../../tables/users';
import { Conflict, NotFound } from '../errors';
import { isAdmin, join, namedUser, newMember, teamAccess, type NewMember, type PublicMember } from './service';

/**
 * Invitations (issue 33): a team's owners, and admins, invite a user; the user accepts (and becomes a
 * member: from then on their calls count in the team, its budgets and its rate limits) or declines.
 * Until they accept, the team has no hold on them: the call path reads memberships only
 * (lib/calls/levels.ts), and an invitation is not one.
 *
 * What an owner learns is only what they typed. The answer to an invitation is the same whether an
 * account answers to the name, is deactivated, or does not exist at all: an invitation of a name no
 * account has is recorded like any other (nobody can accept it; it expires). The invitee's id, e-mail
 * and spend stay hidden from owners who are not admins until the invitee joins; the audit log (admins)
 * names the user the name resolved to.
 */

/** How long an invitation may be accepted. */
const INVITATION_LIFETIME_DAYS = 7;

type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

export interface PublicInvitation {
  id: string;
  team_id: string;
  team_name: string;
  /** Who was invited, as the inviter named them (a user id, username or e-mail address). */
  invitee: string;
  /** The invited user's id, as far as the viewer may know it (admins, the invitee, or an inviter who named the id). */
  user_id: string | null;
  role: TeamRole;
  monthly_budget_usd: number | null;
  status: InvitationStatus;
  invited_by: { id: string; username: string };
  created_at: string;
  expires_at: string;
}

function view(inv: Invitation, teamName: string, viewer: User, status: InvitationStatus = 'pending'): PublicInvitation {
  const knows = isAdmin(viewer) || (inv.user_id !== null && inv.user_id === viewer.id);
  return {
    id: inv.id,
    team_id: inv.team_id,
    team_name: teamName,
    invitee: inv.invitee,
    user_id: knows ? inv.user_id : inv.named_by_id ? inv.invitee : null,
    role: inv.role,
    monthly_budget_usd: inv.monthly_budget_usd,
    status,
    invited_by: inv.invited_by,
    created_at: inv.created_at,
    expires_at: inv.expires_at,
  };
}

/** What the audit log names: the team, the user the name resolved to (or the name no account has), the invitation. */
const subjectOf = (inv: Invitation) => `${inv.team_id}/${inv.user_id ?? `no account '${inv.invitee}'`} (invitation ${inv.id})`;

/** An audited answer: the body, and what the audit log names. */
export interface Audited<T> {
  answer: T;
  subject: string;
}

/**
 * Invites a user (the team's owners and admins). 409 when the same name has a pending invitation, or
 * names someone who is already a member (the inviter sees the roster, so that tells them nothing new).
 */
export async function invite(user: User, teamId: string, input: NewMember, now = new Date()): Promise<Audited<{ invitation: PublicInvitation }>> {
  const { team } = await teamAccess(user, teamId, 'manage');
  if (team.deleting_since) throw new NotFound('Team not found');
  const target = await namedUser(input);
  if (target && (await getTeamAndMember(teamId, target.id)).member) {
    throw new Conflict('The user is already a member of this team', 'Change their role or budget with PATCH instead');
  }
  const created = now.toISOString();
  const inv: Invitation = {
    id: randomUUID(),
    team_id: teamId,
    invitee: input.user_id ?? (input.username as string).toLowerCase(),
    named_by_id: input.user_id !== undefined,
    user_id: target?.id ?? null,
    role: input.role,
    monthly_budget_usd: input.monthly_budget_usd ?? null,
    invited_by: { id: user.id, username: user.username },
    created_at: created,
    expires_at: new Date(now.getTime() + INVITATION_LIFETIME_DAYS * 86_400_000).toISOString(),
  };
  await insertInvitation(inv);
  return { answer: { invitation: view(inv, team.name, user) }, subject: subjectOf(inv) };
}

type PageQuery = { limit: number; cursor?: string };

/** A team's pending invitations (its owners and admins). */
export async function listInvitationsOfTeam(user: User, teamId: string, query: PageQuery, now = new Date()) {
  const { team } = await teamAccess(user, teamId, 'manage');
  const page = await listTeamInvitations(teamId, now.toISOString(), query.limit, query.cursor);
  return { invitations: page.invitations.map((inv) => view(inv, team.name, user)), nextCursor: page.nextCursor };
}

/** The caller's own pending invitations, newest first, with their teams' names (a team deleted meanwhile is left out). */
export async function listMyInvitations(user: User, query: PageQuery, now = new Date()) {
  const page = await listUserInvitations(user.id, now.toISOString(), query.limit, query.cursor);
  const teams = await getTeams([...new Set(page.invitations.map((inv) => inv.team_id))]);
  const invitations = page.invitations.flatMap((inv) => {
    const team = teams.get(inv.team_id);
    return team && !team.deleting_since ? [view(inv, team.name, user)] : [];
  });
  return { invitations, nextCursor: page.nextCursor };
}

/** A pending invitation of the team, as `check` allows the caller to see it; anything else is "not found". */
async function pending(teamId: string, invitationId: string, now: Date, visible: (inv: Invitation) => boolean): Promise<Invitation> {
  const inv = await getInvitation(teamId, invitationId);
  if (!inv || !visible(inv)) throw new NotFound('Invitation not found');
  if (inv.expires_at <= now.toISOString()) throw new NotFound('This invitation has expired', 'Ask an owner of the team for a new one');
  return inv;
}

/** The invitee accepts: they become a member with the role and budget the invitation names, in one transaction. */
export async function accept(
  user: User,
  teamId: string,
  invitationId: string,
  now = new Date(),
): Promise<Audited<{ member: PublicMember; invitation: PublicInvitation }>> {
  const inv = await pending(teamId, invitationId, now, (i) => i.user_id === user.id);
  const { team } = await getTeamAndMember(teamId, user.id);
  if (!team || team.deleting_since) throw new NotFound('Team not found');
  const member = newMember(teamId, user, inv.role, inv.monthly_budget_usd, 'invitation', now);
  const joined = await join(member, now, (m) => acceptInvitation(inv, m, now.toISOString()));
  return { answer: { member: joined, invitation: view(inv, team.name, user, 'accepted') }, subject: subjectOf(inv) };
}

/** The invitee declines; or an owner or admin revokes (`as: 'manager'`). Either way the invitation is gone. */
export async function endInvitation(
  user: User,
  teamId: string,
  invitationId: string,
  as: 'invitee' | 'manager',
  now = new Date(),
): Promise<Audited<{ invitation: PublicInvitation }>> {
  const team = as === 'manager' ? (await teamAccess(user, teamId, 'manage')).team : (await getTeamAndMember(teamId, user.id)).team;
  const inv = await pending(teamId, invitationId, now, (i) => as === 'manager' || i.user_id === user.id);
  await removeInvitation(inv, as === 'invitee' ? user.id : null, now.toISOString());
  const status = as === 'invitee' ? 'declined' : 'revoked';
  return { answer: { invitation: view(inv, team?.name ?? '', user, status) }, subject: subjectOf(inv) };
}
