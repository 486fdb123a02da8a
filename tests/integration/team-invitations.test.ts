/**
 * Team enrolment only with consent (issue 33 item 3): admins add members directly; a team's owners
 * invite, and the invited user accepts or declines. Until they accept, the team has no hold on them
 * (budgets, rate limits, spend on its roster), and the owner learns nothing of their account.
 */
import { jest } from '@jest/globals';
import { handler as inviteFn } from '../../functions/teams/invite';
import { handler as listTeamInvitationsFn } from '../../functions/teams/list-invitations';
import { handler as myInvitationsFn } from '../../functions/teams/my-invitations';
import { handler as acceptFn } from '../../functions/teams/accept-invitation';
import { handler as declineFn } from '../../functions/teams/decline-invitation';
import { handler as revokeFn } from '../../functions/teams/revoke-invitation';
import { handler as addMemberFn } from '../../functions/teams/add-member';
import { handler as listMembersFn } from '../../functions/teams/list-members';
import { handler as deleteTeamFn } from '../../functions/teams/delete';
import { handler as listAudit } from '../../functions/admin/list-audit';
import { invite } from '../../lib/teams/invitations';
import { updateUser } from '../../lib/users/service';
import { readUserWithMemberships } from '../../tables/teams';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, managedResource } from './chat-fixtures';
import { completeOn, createTeam, joinTeam, keyOf, type Caller } from './levels-fixtures';

jest.setTimeout(120_000);

let admin: Caller;
let resource: Resource;
beforeAll(async () => {
  [admin, resource] = await Promise.all([makeUser('admin'), listed(managedResource())]);
});

const complete = completeOn(() => resource);
const path = (teamId: string, invitationId?: string) => ({ teamId, ...(invitationId ? { invitationId } : {}) });
const inviteTo = (token: string, teamId: string, body: Record<string, unknown>) =>
  call(inviteFn as Handler, { method: 'POST', token, pathParameters: path(teamId), body });
const teamInvitations = (token: string, teamId: string) =>
  call(listTeamInvitationsFn as Handler, { token, pathParameters: path(teamId), query: { limit: '100' } });
const myInvitations = (token: string) => call(myInvitationsFn as Handler, { token, query: { limit: '100' } });
const acceptAs = (token: string, teamId: string, id: string) =>
  call(acceptFn as Handler, { method: 'POST', token, pathParameters: path(teamId, id) });
const declineAs = (token: string, teamId: string, id: string) =>
  call(declineFn as Handler, { method: 'POST', token, pathParameters: path(teamId, id) });
const revokeAs = (token: string, teamId: string, id: string) =>
  call(revokeFn as Handler, { method: 'DELETE', token, pathParameters: path(teamId, id) });
const roster = (token: string, teamId: string) => call(listMembersFn as Handler, { token, pathParameters: path(teamId), query: { limit: '100' } });

/** A team (with `body`'s budget and limits) whose owner is a plain user, and a plain member. */
async function ownedTeam(body: Record<string, unknown> = {}) {
  const team = await createTeam(admin, 'invite', body);
  const [owner, member] = await Promise.all([makeUser('user'), makeUser('user')]);
  await call(addMemberFn as Handler, {
    method: 'POST',
    token: admin.token,
    pathParameters: path(team.id),
    body: { user_id: owner.user.id, role: 'owner' },
  });
  await joinTeam(admin, team.id, member);
  return { team, owner, member };
}

/** An invitation's answer without what differs from one invitation to the next. */
const shapeOf = ({ id: _i, invitee: _n, created_at: _c, expires_at: _e, ...rest }: Record<string, unknown>) => rest;

describe('an owner invites', () => {
  test('by username: 201 with the pending invitation, which tells the owner no id, no e-mail, and makes no membership', async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    const res = await inviteTo(owner.token, team.id, { username: invitee.user.username, role: 'member', monthly_budget_usd: 5 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      invitation: {
        id: expect.any(String),
        team_id: team.id,
        team_name: team.name,
        invitee: invitee.user.username.toLowerCase(),
        user_id: null,
        role: 'member',
        monthly_budget_usd: 5,
        status: 'pending',
        invited_by: { id: owner.user.id, username: owner.user.username },
        created_at: expect.any(String),
        expires_at: expect.any(String),
      },
    });
    const { created_at, expires_at } = res.body.invitation;
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(7 * 86_400_000);
    expect(res.raw).not.toContain(invitee.user.email);
    expect(res.raw).not.toContain(invitee.user.id);
    expect((await readUserWithMemberships(invitee.user.id)).memberships).toEqual([]);
  });

  test('the answer is the same for an existing, a deactivated, an admin and an unknown account, by name or by id', async () => {
    const { team, owner } = await ownedTeam();
    const [active, gone, boss] = [await makeUser('user'), await makeUser('user'), await makeUser('admin')];
    await updateUser(gone.user.id, { is_active: false });
    const byName = await Promise.all(
      [active.user.username, gone.user.email, boss.user.username, 'nobody-by-this-name', 'nobody@example.com'].map((username) =>
        inviteTo(owner.token, team.id, { username, role: 'member', monthly_budget_usd: 0 }),
      ),
    );
    expect(byName.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(byName.map((r) => JSON.stringify(shapeOf(r.body.invitation)))).size).toBe(1);
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const byId = await Promise.all([active.user.id, unknownId].map((user_id) => inviteTo(owner.token, team.id, { user_id, role: 'owner' })));
    expect(byId.map((r) => r.status)).toEqual([201, 201]);
    expect(byId.map((r) => r.body.invitation.user_id)).toEqual([active.user.id, unknownId]);
    const { user_id: _a, ...known } = shapeOf(byId[0]?.body.invitation);
    const { user_id: _b, ...unknown } = shapeOf(byId[1]?.body.invitation);
    expect(known).toEqual(unknown);
  });

  test('the same name twice is a 409 whether or not an account answers to it', async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    for (const username of [invitee.user.username, 'nobody-by-this-name']) {
      expect((await inviteTo(owner.token, team.id, { username, role: 'member' })).status).toBe(201);
      const again = await inviteTo(owner.token, team.id, { username: username.toUpperCase(), role: 'member' });
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('This user already has a pending invitation to the team');
    }
  });

  test('a member of the team cannot be invited (409), and both user_id and username is a 400', async () => {
    const { team, owner, member } = await ownedTeam();
    expect((await inviteTo(owner.token, team.id, { username: member.user.username, role: 'owner' })).status).toBe(409);
    expect((await inviteTo(owner.token, team.id, { user_id: member.user.id, username: 'x', role: 'owner' })).status).toBe(400);
  });

  test('a plain member may not invite or see the invitations (403); someone outside the team gets 404', async () => {
    const { team, member } = await ownedTeam();
    const stranger = await makeUser('user');
    expect((await inviteTo(member.token, team.id, { user_id: stranger.user.id, role: 'member' })).status).toBe(403);
    expect((await teamInvitations(member.token, team.id)).status).toBe(403);
    expect((await inviteTo(stranger.token, team.id, { user_id: stranger.user.id, role: 'owner' })).status).toBe(404);
    expect((await teamInvitations(stranger.token, team.id)).status).toBe(404);
  });

  test("the team's owners and admins list its pending invitations; admins also see whom a name resolved to", async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    const made = (await inviteTo(owner.token, team.id, { username: invitee.user.email, role: 'member' })).body.invitation;
    expect((await teamInvitations(owner.token, team.id)).body).toEqual({ success: true, invitations: [made], nextCursor: null });
    const seen = (await teamInvitations(admin.token, team.id)).body.invitations;
    expect(seen).toEqual([{ ...made, user_id: invitee.user.id }]);
  });
});

describe('the invited user', () => {
  test('sees their pending invitation, with the role and budget, and accepts: a member with them, source invitation', async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    const made = (await inviteTo(owner.token, team.id, { username: invitee.user.username, role: 'owner', monthly_budget_usd: 3 })).body.invitation;
    const mine = await myInvitations(invitee.token);
    expect(mine.body.invitations).toEqual([{ ...made, user_id: invitee.user.id }]);

    const res = await acceptAs(invitee.token, team.id, made.id);
    expect(res.status).toBe(200);
    expect(res.body.member).toMatchObject({ team_id: team.id, user_id: invitee.user.id, role: 'owner', monthly_budget_usd: 3, source: 'invitation' });
    expect(res.body.invitation).toMatchObject({ id: made.id, status: 'accepted' });
    const { memberships } = await readUserWithMemberships(invitee.user.id);
    expect(memberships).toEqual([expect.objectContaining({ team_id: team.id, role: 'owner', monthly_budget_usd: 3, source: 'invitation' })]);
    expect((await roster(owner.token, team.id)).body.members.map((m: { user_id: string }) => m.user_id)).toContain(invitee.user.id);
    expect((await myInvitations(invitee.token)).body.invitations).toEqual([]);
    expect((await teamInvitations(owner.token, team.id)).body.invitations).toEqual([]);
    expect((await acceptAs(invitee.token, team.id, made.id)).status).toBe(404);
  });

  test('only the invited user may accept or decline: anyone else, the owner included, gets 404', async () => {
    const { team, owner, member } = await ownedTeam();
    const invitee = await makeUser('user');
    const made = (await inviteTo(owner.token, team.id, { user_id: invitee.user.id, role: 'member' })).body.invitation;
    for (const other of [owner, member, admin]) {
      expect((await acceptAs(other.token, team.id, made.id)).status).toBe(404);
      expect((await declineAs(other.token, team.id, made.id)).status).toBe(404);
    }
    expect((await readUserWithMemberships(owner.user.id)).memberships).toHaveLength(1);
    expect((await myInvitations(invitee.token)).body.invitations).toHaveLength(1);
  });

  test('declines: the invitation is gone, no membership, and the name may be invited again', async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    const made = (await inviteTo(owner.token, team.id, { username: invitee.user.username, role: 'member' })).body.invitation;
    const res = await declineAs(invitee.token, team.id, made.id);
    expect(res.status).toBe(200);
    expect(res.body.invitation).toMatchObject({ id: made.id, status: 'declined' });
    expect((await acceptAs(invitee.token, team.id, made.id)).status).toBe(404);
    expect((await readUserWithMemberships(invitee.user.id)).memberships).toEqual([]);
    expect((await teamInvitations(owner.token, team.id)).body.invitations).toEqual([]);
    expect((await inviteTo(owner.token, team.id, { username: invitee.user.username, role: 'member' })).status).toBe(201);
  });

  test('cannot accept an invitation the owner revoked (404); a plain member may not revoke (403)', async () => {
    const { team, owner, member } = await ownedTeam();
    const invitee = await makeUser('user');
    const made = (await inviteTo(owner.token, team.id, { user_id: invitee.user.id, role: 'member' })).body.invitation;
    expect((await revokeAs(member.token, team.id, made.id)).status).toBe(403);
    const res = await revokeAs(owner.token, team.id, made.id);
    expect(res.status).toBe(200);
    expect(res.body.invitation).toMatchObject({ id: made.id, status: 'revoked' });
    expect((await revokeAs(owner.token, team.id, made.id)).status).toBe(404);
    expect((await acceptAs(invitee.token, team.id, made.id)).status).toBe(404);
    expect((await readUserWithMemberships(invitee.user.id)).memberships).toEqual([]);
  });

  test('cannot accept an expired invitation (404 saying so); it is not listed, and the name may be invited again', async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    const { answer } = await invite(owner.user, team.id, { user_id: invitee.user.id, role: 'member' }, eightDaysAgo);
    const res = await acceptAs(invitee.token, team.id, answer.invitation.id);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('This invitation has expired');
    expect((await myInvitations(invitee.token)).body.invitations).toEqual([]);
    expect((await teamInvitations(owner.token, team.id)).body.invitations).toEqual([]);
    expect((await readUserWithMemberships(invitee.user.id)).memberships).toEqual([]);
    expect((await inviteTo(owner.token, team.id, { user_id: invitee.user.id, role: 'member' })).status).toBe(201);
  });

  test("a team's deletion takes its invitations with it", async () => {
    const { team, owner } = await ownedTeam();
    const invitee = await makeUser('user');
    const made = (await inviteTo(owner.token, team.id, { user_id: invitee.user.id, role: 'member' })).body.invitation;
    expect((await call(deleteTeamFn as Handler, { method: 'DELETE', token: admin.token, pathParameters: path(team.id) })).status).toBe(200);
    expect((await myInvitations(invitee.token)).body.invitations).toEqual([]);
    expect((await acceptAs(invitee.token, team.id, made.id)).status).toBe(404);
  });
});

describe('the original attack: an owner enrols an admin with a $0 budget and a 1-request-a-minute limit', () => {
  test("the admin's personal-key calls are unaffected until they accept; after, the team's budget applies", async () => {
    const { team, owner } = await ownedTeam({ rpm_limit: 1 });
    const target = await makeUser('admin');
    const key = await keyOf(target);

    const direct = await call(addMemberFn as Handler, {
      method: 'POST',
      token: owner.token,
      pathParameters: path(team.id),
      body: { username: target.user.username, role: 'member', monthly_budget_usd: 0 },
    });
    expect(direct.status).toBe(403);
    const made = (await inviteTo(owner.token, team.id, { username: target.user.username, role: 'member', monthly_budget_usd: 0 })).body.invitation;

    // Invited, not accepted: neither the member budget of $0 nor the team's 1 rpm touches their calls.
    for (let i = 0; i < 3; i++) expect((await complete(key.secret)).status).toBe(200);
    expect((await roster(owner.token, team.id)).body.members.map((m: { user_id: string }) => m.user_id)).not.toContain(target.user.id);

    expect((await acceptAs(target.token, team.id, made.id)).status).toBe(200);
    const refused = await complete(key.secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(new RegExp(`^Your monthly budget in team '${team.name}' cannot cover this request`));
  });
});

test('the audit log names the user a username resolved to, for adds and every invitation step, never "undefined"', async () => {
  const { team, owner } = await ownedTeam();
  const [added, invited, decliner] = [await makeUser('user'), await makeUser('user'), await makeUser('user')];
  await call(addMemberFn as Handler, {
    method: 'POST',
    token: admin.token,
    pathParameters: path(team.id),
    body: { username: added.user.email, role: 'member' },
  });
  await call(addMemberFn as Handler, {
    method: 'POST',
    token: owner.token,
    pathParameters: path(team.id),
    body: { username: 'someone', role: 'member' },
  });
  const a = (await inviteTo(owner.token, team.id, { username: invited.user.username, role: 'member' })).body.invitation;
  const b = (await inviteTo(owner.token, team.id, { username: decliner.user.email, role: 'member' })).body.invitation;
  const c = (await inviteTo(owner.token, team.id, { username: 'no-such-account', role: 'member' })).body.invitation;
  await acceptAs(invited.token, team.id, a.id);
  await declineAs(decliner.token, team.id, b.id);
  await revokeAs(owner.token, team.id, c.id);

  const superAdmin = await makeUser('super_admin');
  const entries = (await call(listAudit as Handler, { token: superAdmin.token, query: { limit: '100' } })).body.entries as {
    action: string;
    outcome: string;
    target?: string;
  }[];
  const mine = entries.filter((e) => e.target?.startsWith(team.id)).map((e) => `${e.action} ${e.outcome} ${e.target}`);
  expect(mine).toEqual(
    expect.arrayContaining([
      `team.member.add success ${team.id}/${added.user.id}`,
      `team.member.add failure ${team.id}/someone`,
      `team.invitation.create success ${team.id}/${invited.user.id} (invitation ${a.id})`,
      `team.invitation.create success ${team.id}/${decliner.user.id} (invitation ${b.id})`,
      `team.invitation.create success ${team.id}/no account 'no-such-account' (invitation ${c.id})`,
      `team.invitation.accept success ${team.id}/${invited.user.id} (invitation ${a.id})`,
      `team.invitation.decline success ${team.id}/${decliner.user.id} (invitation ${b.id})`,
      `team.invitation.revoke success ${team.id}/no account 'no-such-account' (invitation ${c.id})`,
    ]),
  );
  expect(mine.filter((line) => line.includes('undefined'))).toEqual([]);
});
