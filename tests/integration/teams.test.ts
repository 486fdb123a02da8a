import { nanosOf } from '../../core/money';
import { handler as createTeamFn } from '../../functions/teams/create';
import { handler as listTeamsFn } from '../../functions/teams/list';
import { handler as getTeamFn } from '../../functions/teams/get';
import { handler as updateTeamFn } from '../../functions/teams/update';
import { handler as deleteTeamFn } from '../../functions/teams/delete';
import { handler as listMembersFn } from '../../functions/teams/list-members';
import { handler as addMemberFn } from '../../functions/teams/add-member';
import { handler as updateMemberFn } from '../../functions/teams/update-member';
import { handler as removeMemberFn } from '../../functions/teams/remove-member';
import { handler as listAudit } from '../../functions/admin/list-audit';
import { chargeWrite, memberBudgetOwner, monthOf, reserve } from '../../tables/budgets';
import { getTeam as getTeamRecord, propagateTeam, readUserWithMemberships, type Team } from '../../tables/teams';
import { transactWrite } from '../../tables/transactions';
import { updateUser } from '../../lib/users/service';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

type Caller = Awaited<ReturnType<typeof makeUser>>;
let seq = 0;
const uniqueName = (base = 'team') => `${base}-${process.pid}-${Date.now().toString(36)}-${seq++}`;

const createTeam = (token: string, body: Record<string, unknown>) => call(createTeamFn as Handler, { method: 'POST', token, body });
const getTeam = (token: string, teamId: string) => call(getTeamFn as Handler, { token, pathParameters: { teamId } });
const patchTeam = (token: string, teamId: string, body: Record<string, unknown>) =>
  call(updateTeamFn as Handler, { method: 'PATCH', token, pathParameters: { teamId }, body });
const deleteTeam = (token: string, teamId: string) => call(deleteTeamFn as Handler, { method: 'DELETE', token, pathParameters: { teamId } });
const listTeams = (token: string, query: Record<string, string> = {}) => call(listTeamsFn as Handler, { token, query: { limit: '100', ...query } });
const members = (token: string, teamId: string) => call(listMembersFn as Handler, { token, pathParameters: { teamId }, query: { limit: '100' } });
const addMember = (token: string, teamId: string, body: Record<string, unknown>) =>
  call(addMemberFn as Handler, { method: 'POST', token, pathParameters: { teamId }, body });
const patchMember = (token: string, teamId: string, userId: string, body: Record<string, unknown>) =>
  call(updateMemberFn as Handler, { method: 'PATCH', token, pathParameters: { teamId, userId }, body });
const removeMember = (token: string, teamId: string, userId: string) =>
  call(removeMemberFn as Handler, { method: 'DELETE', token, pathParameters: { teamId, userId } });

let admin: Caller;
beforeAll(async () => {
  admin = await makeUser('admin');
});

/** A team with an owner and a member. */
async function teamWithPeople(body: Record<string, unknown> = {}) {
  const team = (await createTeam(admin.token, { name: uniqueName(), ...body })).body.team;
  const owner = await makeUser('user');
  const member = await makeUser('user');
  expect((await addMember(admin.token, team.id, { user_id: owner.user.id, role: 'owner' })).status).toBe(201);
  expect((await addMember(admin.token, team.id, { user_id: member.user.id, role: 'member' })).status).toBe(201);
  return { team, owner, member };
}

describe('teams', () => {
  test('an admin creates a team with a budget and limits: 201 with spend 0 and no members yet', async () => {
    const name = uniqueName('ml');
    const res = await createTeam(admin.token, { name, monthly_budget_usd: 100, rpm_limit: 60, tpm_limit: 100_000 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      team: {
        id: expect.any(String),
        name,
        monthly_budget_usd: 100,
        spent_usd: 0,
        rpm_limit: 60,
        tpm_limit: 100_000,
        allowed_service_tiers: null,
        active_keys: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        my_role: null,
        alert_thresholds: [0.8, 1],
      },
    });
    expect((await members(admin.token, res.body.team.id)).body.members).toEqual([]);
  });

  test('a team name is unique whatever its case: a second team of the same name is 409', async () => {
    const name = uniqueName('Data');
    expect((await createTeam(admin.token, { name })).status).toBe(201);
    const again = await createTeam(admin.token, { name: name.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('A team with this name already exists');
  });

  test('a user is refused creating a team (403), and a name with a leading space is a 400 naming the field', async () => {
    const user = await makeUser('user');
    expect((await createTeam(user.token, { name: uniqueName() })).status).toBe(403);
    const bad = await createTeam(admin.token, { name: ' padded' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/'name'/);
  });

  test('limits must be whole numbers of at least 1: 0 and 1.5 are 400s', async () => {
    expect((await createTeam(admin.token, { name: uniqueName(), rpm_limit: 0 })).status).toBe(400);
    expect((await createTeam(admin.token, { name: uniqueName(), tpm_limit: 1.5 })).status).toBe(400);
  });

  test('an admin lists every team; a user lists only their own, with their role; scope=all is 403 for them', async () => {
    const { team, owner, member } = await teamWithPeople();
    const other = (await createTeam(admin.token, { name: uniqueName() })).body.team;
    const all = await listTeams(admin.token);
    expect(all.body.teams.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining([team.id, other.id]));
    const mine = await listTeams(member.token);
    expect(mine.body.teams).toEqual([expect.objectContaining({ id: team.id, my_role: 'member' })]);
    expect((await listTeams(owner.token)).body.teams).toEqual([expect.objectContaining({ id: team.id, my_role: 'owner' })]);
    expect((await listTeams(member.token, { scope: 'all' })).status).toBe(403);
  });

  test('an admin asking for scope=user gets only the teams they belong to', async () => {
    const own = (await createTeam(admin.token, { name: uniqueName() })).body.team;
    await createTeam(admin.token, { name: uniqueName() });
    expect((await addMember(admin.token, own.id, { user_id: admin.user.id, role: 'owner' })).status).toBe(201);
    const res = await listTeams(admin.token, { scope: 'user' });
    expect(res.body.teams).toEqual([expect.objectContaining({ id: own.id, my_role: 'owner' })]);
  });

  test('a team is seen by its members and admins; for anyone else it does not exist (404)', async () => {
    const { team, member } = await teamWithPeople();
    const stranger = await makeUser('user');
    expect((await getTeam(member.token, team.id)).body.team).toMatchObject({ id: team.id, my_role: 'member' });
    expect((await getTeam(admin.token, team.id)).body.team).toMatchObject({ id: team.id, my_role: null });
    expect((await getTeam(stranger.token, team.id)).status).toBe(404);
    expect((await members(stranger.token, team.id)).status).toBe(404);
  });

  test('PATCH changes the budget and limits, null clears them, and a user may not (403)', async () => {
    const { team, owner } = await teamWithPeople({ monthly_budget_usd: 10, rpm_limit: 5 });
    const res = await patchTeam(admin.token, team.id, { monthly_budget_usd: 20, rpm_limit: null, tpm_limit: 1000 });
    expect(res.status).toBe(200);
    expect(res.body.team).toMatchObject({ monthly_budget_usd: 20, rpm_limit: null, tpm_limit: 1000 });
    expect((await getTeam(owner.token, team.id)).body.team).toMatchObject({ monthly_budget_usd: 20, rpm_limit: null, tpm_limit: 1000 });
    expect((await patchTeam(owner.token, team.id, { monthly_budget_usd: 1 })).status).toBe(403);
    expect((await patchTeam(admin.token, team.id, {})).status).toBe(400);
  });

  test('renaming frees the old name and takes the new one', async () => {
    const a = (await createTeam(admin.token, { name: uniqueName('old') })).body.team;
    const b = (await createTeam(admin.token, { name: uniqueName('taken') })).body.team;
    expect((await patchTeam(admin.token, a.id, { name: b.name })).status).toBe(409);
    const renamed = uniqueName('new');
    expect((await patchTeam(admin.token, a.id, { name: renamed })).body.team.name).toBe(renamed);
    expect((await createTeam(admin.token, { name: a.name })).status).toBe(201);
    expect((await createTeam(admin.token, { name: renamed })).status).toBe(409);
  });

  test("a change of the team's budget or limits reaches every member's copy, read with the profile in one Query", async () => {
    const { team, owner, member } = await teamWithPeople({ monthly_budget_usd: 10 });
    await patchTeam(admin.token, team.id, { monthly_budget_usd: 42, rpm_limit: 7, tpm_limit: 700, name: `${team.name}-x` });
    for (const person of [owner, member]) {
      const { user, memberships } = await readUserWithMemberships(person.user.id);
      expect(user?.id).toBe(person.user.id);
      expect(memberships).toEqual([
        expect.objectContaining({
          team_id: team.id,
          team: { name: `${team.name}-x`, monthly_budget_usd: 42, rpm_limit: 7, tpm_limit: 700, allowed_service_tiers: null, version: 2 },
        }),
      ]);
    }
  });

  // A race: each round gives a stale copy a chance (an add that read the team before a change
  // wrote it, after that change's propagation had listed the members); three rounds make it near certain.
  test('members added while the team changes still end with its latest figures', async () => {
    for (let round = 0; round < 3; round++) {
      const team = (await createTeam(admin.token, { name: uniqueName(), monthly_budget_usd: 1 })).body.team;
      const people = await Promise.all(Array.from({ length: 12 }, () => makeUser('user')));
      // Each add reads the team, then writes; each change writes the team, then the copies it finds.
      await Promise.all([
        ...people.map((p) => addMember(admin.token, team.id, { user_id: p.user.id, role: 'member' })),
        ...[2, 3, 4, 5].map((n) => patchTeam(admin.token, team.id, { monthly_budget_usd: n, rpm_limit: n })),
      ]);
      const final = (await getTeam(admin.token, team.id)).body.team;
      for (const p of people) {
        const { memberships } = await readUserWithMemberships(p.user.id);
        expect(memberships[0]?.team).toMatchObject({ monthly_budget_usd: final.monthly_budget_usd, rpm_limit: final.rpm_limit });
      }
    }
  });

  test("a propagation of an older version never overwrites a member's newer copy", async () => {
    const { team, member } = await teamWithPeople({ monthly_budget_usd: 1 });
    const older = await getTeamRecord(team.id);
    await patchTeam(admin.token, team.id, { monthly_budget_usd: 2 });
    await propagateTeam({ ...(older as Team), monthly_budget_usd: 99 });
    const { memberships } = await readUserWithMemberships(member.user.id);
    expect(memberships[0]?.team).toMatchObject({ monthly_budget_usd: 2, version: 2 });
  });
});

describe('members', () => {
  test("an admin adds a member with a budget; the roster shows role, budget, source and this month's spend", async () => {
    const { team, owner, member } = await teamWithPeople();
    const newcomer = await makeUser('user');
    const res = await addMember(admin.token, team.id, { user_id: newcomer.user.id, role: 'member', monthly_budget_usd: 5 });
    expect(res.status).toBe(201);
    expect(res.body.member).toEqual({
      team_id: team.id,
      user_id: newcomer.user.id,
      username: newcomer.user.username,
      email: newcomer.user.email,
      role: 'member',
      monthly_budget_usd: 5,
      spent_usd: 0,
      alert_thresholds: [0.8, 1],
      source: 'manual',
      joined_at: expect.any(String),
    });
    const roster = await members(member.token, team.id);
    expect(roster.body.members.map((m: { user_id: string }) => m.user_id).sort()).toEqual([owner.user.id, member.user.id, newcomer.user.id].sort());
  });

  test("a team's owner may not add a member directly: 403 pointing at invitations, and nothing is written", async () => {
    const { team, owner } = await teamWithPeople();
    const other = await makeUser('user');
    const res = await addMember(owner.token, team.id, { user_id: other.user.id, role: 'member', monthly_budget_usd: 0 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: 'Only admins add members directly; invite the user instead',
      details: `POST /api/teams/${team.id}/invitations: they become a member when they accept`,
    });
    expect((await readUserWithMemberships(other.user.id)).memberships).toEqual([]);
  });

  test('a plain member may not add, change or remove others (403)', async () => {
    const { team, owner, member } = await teamWithPeople();
    const other = await makeUser('user');
    expect((await addMember(member.token, team.id, { user_id: other.user.id, role: 'member' })).status).toBe(403);
    expect((await patchMember(member.token, team.id, owner.user.id, { role: 'member' })).status).toBe(403);
    expect((await removeMember(member.token, team.id, owner.user.id)).status).toBe(403);
  });

  test('someone outside the team gets 404 for its members, and adding a member twice is 409', async () => {
    const { team, member } = await teamWithPeople();
    const stranger = await makeUser('user');
    expect((await addMember(stranger.token, team.id, { user_id: stranger.user.id, role: 'owner' })).status).toBe(404);
    const twice = await addMember(admin.token, team.id, { user_id: member.user.id, role: 'owner' });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('The user is already a member of this team');
  });

  test('a member may be named by username or e-mail instead of id; both at once is a 400', async () => {
    const { team } = await teamWithPeople();
    const owner = admin;
    const [a, b] = [await makeUser('user'), await makeUser('user')];
    expect((await addMember(owner.token, team.id, { username: a.user.username, role: 'member' })).body.member.user_id).toBe(a.user.id);
    expect((await addMember(owner.token, team.id, { username: b.user.email, role: 'member' })).body.member.user_id).toBe(b.user.id);
    const both = await addMember(owner.token, team.id, { user_id: a.user.id, username: a.user.username, role: 'member' });
    expect(both.status).toBe(400);
    expect((await addMember(owner.token, team.id, { role: 'member' })).status).toBe(400);
    expect((await addMember(owner.token, team.id, { username: 'nobody-by-this-name', role: 'member' })).body.error).toBe(
      "Invalid field 'username': no such user",
    );
  });

  test('adding an unknown or deactivated user is a 400 naming user_id (admins: they may know who exists)', async () => {
    const { team } = await teamWithPeople();
    const owner = admin;
    const unknown = await addMember(owner.token, team.id, { user_id: '00000000-0000-4000-8000-000000000000', role: 'member' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe("Invalid field 'user_id': no such user");
    const gone = await makeUser('user');
    await updateUser(gone.user.id, { is_active: false });
    expect((await addMember(owner.token, team.id, { user_id: gone.user.id, role: 'member' })).body.error).toMatch(/deactivated/);
  });

  test("an owner changes a member's role and budget; null removes the budget; the member's copy follows", async () => {
    const { team, owner, member } = await teamWithPeople();
    const res = await patchMember(owner.token, team.id, member.user.id, { role: 'owner', monthly_budget_usd: 3 });
    expect(res.status).toBe(200);
    expect(res.body.member).toMatchObject({ role: 'owner', monthly_budget_usd: 3 });
    expect((await patchMember(owner.token, team.id, member.user.id, { monthly_budget_usd: null })).body.member.monthly_budget_usd).toBeNull();
    const { memberships } = await readUserWithMemberships(member.user.id);
    expect(memberships[0]).toMatchObject({ role: 'owner', monthly_budget_usd: null });
    expect((await patchMember(owner.token, team.id, (await makeUser('user')).user.id, { role: 'owner' })).status).toBe(404);
  });

  test('a member may leave; an owner removes a member; both are gone from the roster and from their own list', async () => {
    const { team, owner, member } = await teamWithPeople();
    const left = await removeMember(member.token, team.id, member.user.id);
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ success: true, member: { user_id: member.user.id }, revoked_keys: 0 });
    expect((await listTeams(member.token)).body.teams).toEqual([]);
    expect((await getTeam(member.token, team.id)).status).toBe(404);
    expect((await removeMember(owner.token, team.id, member.user.id)).status).toBe(404);
    expect((await readUserWithMemberships(member.user.id)).memberships).toEqual([]);
  });
});

describe('spend of teams and members', () => {
  test("a team's and a member's spent_usd are this month's spend items (SPEND#TEAM, SPEND#MEMBER)", async () => {
    const { team, owner, member } = await teamWithPeople();
    const month = monthOf(new Date());
    await transactWrite([
      chargeWrite({ kind: 'team', id: team.id }, month, nanosOf(1.25), null),
      chargeWrite(memberBudgetOwner(team.id, member.user.id), month, nanosOf(0.75), null),
    ]);
    expect((await getTeam(owner.token, team.id)).body.team.spent_usd).toBe(1.25);
    const roster = (await members(owner.token, team.id)).body.members;
    expect(roster.find((m: { user_id: string }) => m.user_id === member.user.id).spent_usd).toBe(0.75);
    expect(roster.find((m: { user_id: string }) => m.user_id === owner.user.id).spent_usd).toBe(0);
  });

  test("a team budget change moves this month's spend item at once: a reservation the new budget cannot cover is refused", async () => {
    const { team } = await teamWithPeople({ monthly_budget_usd: 10 });
    const month = monthOf(new Date());
    const owner = { kind: 'team' as const, id: team.id };
    await transactWrite([chargeWrite(owner, month, nanosOf(1.5), 10)]);
    await patchTeam(admin.token, team.id, { monthly_budget_usd: 2 });
    const now = new Date();
    const ask = (amountUsd: number, id: string) =>
      reserve({ owner, month, budget: nanosOf(2), amount: nanosOf(amountUsd), id, expiresAt: new Date(now.getTime() + 60_000), now });
    expect(await ask(1, 'too-much')).toBeUndefined();
    expect(await ask(0.4, 'fits')).toBeDefined();
  });

  test("a member's budget change moves their spend item within the team the same way", async () => {
    const { team, owner, member } = await teamWithPeople();
    const month = monthOf(new Date());
    const spender = memberBudgetOwner(team.id, member.user.id);
    await transactWrite([chargeWrite(spender, month, nanosOf(0.5), null)]);
    await patchMember(owner.token, team.id, member.user.id, { monthly_budget_usd: 0.6 });
    const now = new Date();
    const ask = (amountUsd: number, id: string) =>
      reserve({ owner: spender, month, budget: nanosOf(0.6), amount: nanosOf(amountUsd), id, expiresAt: new Date(now.getTime() + 60_000), now });
    expect(await ask(0.2, 'too-much')).toBeUndefined();
    expect(await ask(0.1, 'fits')).toBeDefined();
  });
});

describe('deleting a team', () => {
  test('removes the team, its name and every membership (both sides)', async () => {
    const { team, owner, member } = await teamWithPeople();
    const res = await deleteTeam(admin.token, team.id);
    expect(res.status).toBe(200);
    expect(res.body.team.id).toBe(team.id);
    expect((await getTeam(admin.token, team.id)).status).toBe(404);
    for (const p of [owner, member]) expect((await readUserWithMemberships(p.user.id)).memberships).toEqual([]);
    expect((await createTeam(admin.token, { name: team.name })).status).toBe(201);
    expect((await deleteTeam(admin.token, team.id)).status).toBe(404);
  });

  test('is for admins only (403 for a team owner)', async () => {
    const { team, owner } = await teamWithPeople();
    expect((await deleteTeam(owner.token, team.id)).status).toBe(403);
  });
});

test('every team and member action is in the audit log with its actor, refusals included', async () => {
  const { team, owner, member } = await teamWithPeople();
  await patchTeam(admin.token, team.id, { rpm_limit: 9 });
  await patchMember(owner.token, team.id, member.user.id, { monthly_budget_usd: 1 });
  await addMember(member.token, team.id, { user_id: admin.user.id, role: 'owner' });
  await addMember(owner.token, team.id, { username: admin.user.username, role: 'member', monthly_budget_usd: 0 });
  await removeMember(owner.token, team.id, member.user.id);
  await deleteTeam(admin.token, team.id);
  const superAdmin = await makeUser('super_admin');
  const entries = (await call(listAudit as Handler, { token: superAdmin.token, query: { limit: '100' } })).body.entries as {
    action: string;
    actor: { id: string };
    outcome: string;
    target?: string;
  }[];
  const mine = entries.filter((e) => e.target?.startsWith(team.id) || e.target === team.name);
  const seen = mine.map(
    (e) => `${e.action}:${e.actor.id === admin.user.id ? 'admin' : e.actor.id === owner.user.id ? 'owner' : 'member'}:${e.outcome}`,
  );
  expect(seen).toEqual(
    expect.arrayContaining([
      'team.create:admin:success',
      'team.member.add:admin:success',
      'team.member.add:owner:failure',
      'team.update:admin:success',
      'team.member.update:owner:success',
      'team.member.add:member:failure',
      'team.member.remove:owner:success',
      'team.delete:admin:success',
    ]),
  );
});
