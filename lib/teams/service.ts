import { setAlertThresholds } from '../../tables/alerts';
import { alertThresholdsOf } from '../alerts/thresholds';
import { usdOf } from '../../core/money';
import { randomUUID } from 'node:crypto';
import { memberBudgetOwner, monthOf, readSpend, setBudget, type BudgetOwner } from '../../tables/budgets';
import { listTeamKeyRecords, teamKeyIdsOf } from '../../tables/keys';
import { updateApiKeyRecord } from '../../tables/writes/keys';
import {
  deleteMarkedTeam,
  deleteMember,
  getTeamAndMember,
  getTeams,
  insertMember,
  insertTeam,
  listMembers as readMembers,
  listMemberships,
  listTeams as readTeams,
  markTeamDeleting,
  propagateTeam,
  updateMember as writeMember,
  updateTeam as writeTeam,
  type Member,
  type MembershipSource,
  type Team,
  type TeamRole,
} from '../../tables/teams';
import { getUserById, getUserByLogin, type StoredUser, type User } from '../../tables/users';
import { deleteTeamInvitations } from '../../tables/invitations';
import { isDataError } from '../../tables/errors';
import { BadRequest, Forbidden, NotFound } from '../errors';

/**
 * Teams (issue 25): admins create, change and delete teams and add anyone to them; a team's owners
 * invite people (lib/teams/invitations.ts: nobody joins a team without their consent), change and
 * remove its members and manage its keys (lib/keys/service.ts); members see their team and its roster. Spend is read from the team's and each member's spend items (tables/budgets.ts), which the
 * metered calls write; a budget change moves the current month's item at once, as for keys and users.
 * Every action is audited by its endpoint.
 */

export interface NewTeam {
  name: string;
  monthly_budget_usd?: number;
  rpm_limit?: number;
  tpm_limit?: number;
  allowed_service_tiers?: NonNullable<Team['allowed_service_tiers']>;
}

export type TeamChanges = Partial<{
  name: string;
  monthly_budget_usd: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  allowed_service_tiers: Team['allowed_service_tiers'];
  /** The budget's alert thresholds (tables/alerts.ts); null: the default. */
  alert_thresholds: number[] | null;
}>;

export interface NewMember {
  /** The user by id, or by `username` (a username or an e-mail address): one of the two. */
  user_id?: string;
  username?: string;
  role: TeamRole;
  monthly_budget_usd?: number;
}

export type MemberChanges = Partial<{ role: TeamRole; monthly_budget_usd: number | null; alert_thresholds: number[] | null }>;

/** A team as every answer shows it: this month's spend, and the caller's own role in it (null: not a member). */
export interface PublicTeam {
  id: string;
  name: string;
  monthly_budget_usd: number | null;
  spent_usd: number;
  rpm_limit: number | null;
  tpm_limit: number | null;
  allowed_service_tiers: Team['allowed_service_tiers'];
  active_keys: number;
  created_at: string;
  updated_at: string;
  my_role: TeamRole | null;
  alert_thresholds: number[];
}

export interface PublicMember extends Omit<Member, 'updated_at'> {
  spent_usd: number;
  alert_thresholds: number[];
}

export const isAdmin = (user: User) => user.role === 'admin' || user.role === 'super_admin';
const teamOwner = (team: Team): BudgetOwner => ({ kind: 'team', id: team.id });

async function withSpend(teams: Team[], roles: Map<string, TeamRole>, now: Date): Promise<PublicTeam[]> {
  if (teams.length === 0) return [];
  const [spend, thresholds] = await Promise.all([readSpend(teams.map(teamOwner), monthOf(now)), alertThresholdsOf(teams.map(teamOwner))]);
  return teams.map((t) => ({
    id: t.id,
    name: t.name,
    monthly_budget_usd: t.monthly_budget_usd,
    spent_usd: usdOf(spend(teamOwner(t)).spent),
    rpm_limit: t.rpm_limit,
    tpm_limit: t.tpm_limit,
    allowed_service_tiers: t.allowed_service_tiers,
    active_keys: t.active_keys,
    created_at: t.created_at,
    updated_at: t.updated_at,
    my_role: roles.get(t.id) ?? null,
    alert_thresholds: thresholds(teamOwner(t)),
  }));
}

async function membersWithSpend(members: Member[], now: Date): Promise<PublicMember[]> {
  if (members.length === 0) return [];
  const owner = (m: Pick<Member, 'team_id' | 'user_id'>) => memberBudgetOwner(m.team_id, m.user_id);
  const [spend, thresholds] = await Promise.all([readSpend(members.map(owner), monthOf(now)), alertThresholdsOf(members.map(owner))]);
  return members.map(({ updated_at: _u, ...m }) => ({ ...m, spent_usd: usdOf(spend(owner(m)).spent), alert_thresholds: thresholds(owner(m)) }));
}

/** Every team the caller belongs to, with their role in each (all pages: a person is in a handful). */
async function rolesOf(userId: string): Promise<Map<string, TeamRole>> {
  const roles = new Map<string, TeamRole>();
  let cursor: string | undefined;
  do {
    const page = await listMemberships(userId, 100, cursor);
    for (const m of page.memberships) roles.set(m.team_id, m.role);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return roles;
}

export interface TeamAccess {
  team: Team;
  /** The caller's own membership, if they have one. */
  member?: Member;
  /** Admins, and the team's owners: may manage its members and keys. */
  manages: boolean;
}

/**
 * The team as the caller may see it: admins see every team, anyone else only the teams they belong
 * to (others' are "not found", so a team's existence is not revealed). `manage` asks for more: an
 * admin or an owner of the team (403 for a plain member).
 */
export async function teamAccess(user: User, teamId: string, need: 'see' | 'manage' = 'see'): Promise<TeamAccess> {
  const { team, member } = await getTeamAndMember(teamId, user.id);
  if (!team || (!member && !isAdmin(user))) throw new NotFound('Team not found');
  const manages = isAdmin(user) || member?.role === 'owner';
  if (need === 'manage' && !manages) throw new Forbidden("Only the team's owners and admins may do this");
  return { team, member, manages };
}

export async function createTeam(input: NewTeam, now = new Date()): Promise<PublicTeam> {
  const at = now.toISOString();
  const team: Team = {
    id: randomUUID(),
    name: input.name,
    monthly_budget_usd: input.monthly_budget_usd ?? null,
    rpm_limit: input.rpm_limit ?? null,
    tpm_limit: input.tpm_limit ?? null,
    allowed_service_tiers: input.allowed_service_tiers ? [...new Set(input.allowed_service_tiers)] : null,
    created_at: at,
    updated_at: at,
    active_keys: 0,
    version: 1,
    deleting_since: null,
  };
  await insertTeam(team);
  return (await withSpend([team], new Map(), now))[0] as PublicTeam;
}

/** Admins: every team (or, `scope=user`, their own); anyone else: their own teams (`scope=all` is 403). */
export async function listTeams(user: User, query: { scope?: 'all' | 'user'; limit: number; cursor?: string }, now = new Date()) {
  const all = query.scope === 'all' || (query.scope === undefined && isAdmin(user));
  if (all && !isAdmin(user)) throw new Forbidden('Admin privileges required');
  if (all) {
    const [page, roles] = await Promise.all([readTeams(query.limit, query.cursor), rolesOf(user.id)]);
    return { teams: await withSpend(page.teams, roles, now), nextCursor: page.nextCursor };
  }
  const page = await listMemberships(user.id, query.limit, query.cursor);
  const teams = await getTeams(page.memberships.map((m) => m.team_id));
  const roles = new Map(page.memberships.map((m) => [m.team_id, m.role]));
  const found = page.memberships.flatMap((m) => (teams.get(m.team_id) ? [teams.get(m.team_id) as Team] : []));
  return { teams: await withSpend(found, roles, now), nextCursor: page.nextCursor };
}

export async function getTeamView(user: User, teamId: string, now = new Date()) {
  const { team, member } = await teamAccess(user, teamId);
  return { team: (await withSpend([team], new Map(member ? [[team.id, member.role]] : []), now))[0] };
}

/**
 * Admins change a team's name, budget or limits (null removes one). The members' copies follow
 * (tables/teams.ts), and a budget change moves the current month's spend item at once.
 */
export async function updateTeam(user: User, teamId: string, changes: TeamChanges, now = new Date()) {
  const { team: current, member } = await teamAccess(user, teamId);
  if (current.deleting_since) throw new NotFound('Team not found');
  const { alert_thresholds: thresholds, ...fields } = changes;
  const tiers = fields.allowed_service_tiers;
  const team = Object.keys(fields).length
    ? await writeTeam(current, tiers ? { ...fields, allowed_service_tiers: [...new Set(tiers)] } : fields, now.toISOString())
    : current;
  await propagateTeam(team);
  if (changes.monthly_budget_usd !== undefined) await setBudget(teamOwner(team), monthOf(now), changes.monthly_budget_usd);
  if (thresholds !== undefined) await setAlertThresholds(teamOwner(team), thresholds);
  return { team: (await withSpend([team], new Map(member ? [[team.id, member.role]] : []), now))[0] };
}

/**
 * Deletes a team: refused (409) while it has active API keys, which would otherwise keep spending in
 * its name; its memberships go with it. The team's and members' spend items stay (the month's
 * record), and so do its invitations. A deletion cut short is finished by calling again.
 */
export async function deleteTeam(user: User, teamId: string, now = new Date()) {
  const { team } = await teamAccess(user, teamId);
  const marked = await markTeamDeleting(team, now.toISOString());
  const [view] = await withSpend([marked], new Map(), now);
  await deleteTeamInvitations(team.id);
  await deleteMarkedTeam(marked);
  return { team: view };
}

export async function listMembers(user: User, teamId: string, query: { limit: number; cursor?: string }, now = new Date()) {
  await teamAccess(user, teamId);
  const page = await readMembers(teamId, query.limit, query.cursor);
  return { members: await membersWithSpend(page.members, now), nextCursor: page.nextCursor };
}

/** The user an add or an invitation names, by id or by username or e-mail; undefined when none answers. */
export async function namedUser(input: Pick<NewMember, 'user_id' | 'username'>): Promise<StoredUser | undefined> {
  if (input.user_id && input.username) throw new BadRequest("Give 'user_id' or 'username', not both");
  return input.user_id ? getUserById(input.user_id) : getUserByLogin(input.username as string);
}

/**
 * Writes a membership and its budget (with `along`, in the transaction of an accepted invitation). A
 * member's budget moves their spend item of this month at once: someone who left and joins again in
 * the same month finds the spend they already had.
 */
export async function join(member: Member, now: Date, write: (m: Member) => Promise<unknown> = insertMember): Promise<PublicMember> {
  await write(member);
  await setBudget(memberBudgetOwner(member.team_id, member.user_id), monthOf(now), member.monthly_budget_usd);
  return (await membersWithSpend([member], now))[0] as PublicMember;
}

/** A membership of `user` as it starts now. */
export function newMember(
  teamId: string,
  user: User,
  role: TeamRole,
  budgetUsd: number | null | undefined,
  source: MembershipSource,
  now: Date,
): Member {
  const at = now.toISOString();
  return {
    team_id: teamId,
    user_id: user.id,
    username: user.username,
    email: user.email,
    role,
    monthly_budget_usd: budgetUsd ?? null,
    source,
    joined_at: at,
    updated_at: at,
  };
}

/**
 * Adds a member directly: an admin's action, and sign-on's (`source: 'sso'`, lib/signon/callback.ts).
 * Nobody else enrols a user without their consent: owners invite (lib/teams/invitations.ts).
 */
export async function addMember(teamId: string, input: NewMember & { source?: MembershipSource }, now = new Date()): Promise<PublicMember> {
  const field = input.user_id ? 'user_id' : 'username';
  const target = await namedUser(input);
  if (!target) throw new BadRequest(`Invalid field '${field}': no such user`);
  if (!target.is_active) throw new BadRequest(`Invalid field '${field}': the user is deactivated`);
  return join(newMember(teamId, target, input.role, input.monthly_budget_usd, input.source ?? 'manual', now), now);
}

/**
 * POST /api/teams/{teamId}/members: admins only. An owner who is not an admin is told to invite
 * instead (403); someone outside the team learns nothing of it (404).
 */
export async function addMemberAs(user: User, teamId: string, input: NewMember, now = new Date()) {
  const { team } = await teamAccess(user, teamId);
  if (!isAdmin(user)) {
    throw new Forbidden(
      'Only admins add members directly; invite the user instead',
      `POST /api/teams/${team.id}/invitations: they become a member when they accept`,
    );
  }
  return { member: await addMember(teamId, input, now) };
}

/** Changes a member's role or budget (admins and owners); a change by hand makes a sign-on membership manual. */
export async function updateMember(user: User, teamId: string, userId: string, changes: MemberChanges, now = new Date()) {
  await teamAccess(user, teamId, 'manage');
  const { alert_thresholds: thresholds, ...fields } = changes;
  await writeMember(teamId, userId, { ...fields, source: 'manual' }, now.toISOString());
  if (changes.monthly_budget_usd !== undefined) await setBudget(memberBudgetOwner(teamId, userId), monthOf(now), changes.monthly_budget_usd);
  const { member } = await getTeamAndMember(teamId, userId);
  if (!member) throw new NotFound('The user is not a member of this team');
  if (thresholds !== undefined) await setAlertThresholds(memberBudgetOwner(teamId, userId), thresholds);
  return { member: (await membersWithSpend([member], now))[0] };
}

/**
 * Removes a member: admins and owners remove anyone, a member may leave. Their keys of the team are
 * revoked in the same request: a key of a team's member spends the team's money, and someone who is
 * no longer a member must not. (The membership goes first, so no key of theirs can be created after.)
 */
export async function removeMember(teamId: string, userId: string, now = new Date()): Promise<{ member: PublicMember; revoked_keys: number }> {
  const { member } = await getTeamAndMember(teamId, userId);
  if (!member) throw new NotFound('The user is not a member of this team');
  await deleteMember(teamId, userId);
  let revoked = 0;
  for (const id of await teamKeyIdsOf(teamId, userId)) {
    try {
      await updateApiKeyRecord(id, { revoked_at: now.toISOString() });
      revoked++;
    } catch (err) {
      // Already revoked: nothing to do.
      if (!isDataError(err, 'RuleViolation')) throw err;
    }
  }
  return { member: (await membersWithSpend([member], now))[0] as PublicMember, revoked_keys: revoked };
}

export async function removeMemberAs(user: User, teamId: string, userId: string, now = new Date()) {
  await teamAccess(user, teamId, userId === user.id ? 'see' : 'manage');
  return removeMember(teamId, userId, now);
}

/** A team's keys (admins and its owners), newest first. */
export async function listTeamKeys(user: User, teamId: string, page: { limit: number; cursor?: string }) {
  await teamAccess(user, teamId, 'manage');
  return listTeamKeyRecords(teamId, page.limit, page.cursor);
}
