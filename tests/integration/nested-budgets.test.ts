/**
 * Nested budgets (issue 25 item 2): a call holds its bound on every level that has a budget (the key,
 * the user, the user within each team it counts in, the team) in one conditional write before the
 * model is asked, and settles every level exactly once. A team key counts in its team; a member's
 * other calls (personal keys, session chat) in each of their teams.
 */
import { nanosOf, usdOf } from '../../core/money';
import { jest } from '@jest/globals';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as usageCurrent } from '../../functions/usage/current';
import { handler as removeMemberFn } from '../../functions/teams/remove-member';
import { handler as updateTeamFn } from '../../functions/teams/update';
import { handler as updateUser } from '../../functions/admin/update-user';
import { memberBudgetOwner, monthOf, readSpend, type BudgetOwner } from '../../tables/budgets';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { listed, managedResource, newConversation } from './chat-fixtures';
import { completeOn, createTeam, joinTeam, keyOf, type Caller } from './levels-fixtures';

jest.setTimeout(180_000);

let admin: Caller;
let superAdmin: Caller;
let resource: Resource;

beforeAll(async () => {
  [admin, superAdmin, resource] = await Promise.all([makeUser('admin'), makeUser('super_admin'), listed(managedResource())]);
});

const complete = completeOn(() => resource);

const team = (body: Record<string, unknown> = {}) => createTeam(admin, 'nested', body);
const join = (teamId: string, user: Caller, monthly_budget_usd?: number) => joinTeam(admin, teamId, user, monthly_budget_usd);

const setUserBudget = (userId: string, monthly_budget_usd: number | null) =>
  call(updateUser as Handler, { method: 'PATCH', token: superAdmin.token, pathParameters: { userId }, body: { monthly_budget_usd } });

const spendOf = async (owner: BudgetOwner) => {
  const { spent, reserved } = (await readSpend([owner], monthOf(new Date())))(owner);
  return { spent_usd: usdOf(spent), reserved_usd: usdOf(reserved) };
};
const costOf = (r: { headers: Record<string, string> }) => Number(r.headers['x-model-ops-cost-usd']);
const sum = (costs: number[]) => usdOf(costs.reduce((a, c) => a + nanosOf(c), 0));

describe('a refusal names the level that refused', () => {
  test("a team key's call over its team's budget is 429 budget_exceeded naming the team, with the key's and user's budgets generous", async () => {
    const t = await team({ monthly_budget_usd: 0.000001 });
    const member = await makeUser('user');
    await join(t.id, member, 100);
    await setUserBudget(member.user.id, 100);
    const key = await keyOf(member, { team_id: t.id, monthly_budget_usd: 100 });
    const res = await complete(key.secret);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'budget_exceeded', type: 'insufficient_quota' });
    expect(res.body.error.message).toMatch(new RegExp(`^The monthly budget of team '${t.name}' cannot cover this request`));
  });

  test("over the member's budget within the team: 'your budget in team X'", async () => {
    const t = await team({ monthly_budget_usd: 100 });
    const member = await makeUser('user');
    await join(t.id, member, 0.000001);
    const key = await keyOf(member, { team_id: t.id });
    const res = await complete(key.secret);
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(new RegExp(`^Your monthly budget in team '${t.name}' cannot cover this request`));
  });

  test("a team key's call still counts against its owner's own budget (the user level is never skipped)", async () => {
    const t = await team({ monthly_budget_usd: 100 });
    const member = await makeUser('user');
    await join(t.id, member);
    await setUserBudget(member.user.id, 0.000001);
    const key = await keyOf(member, { team_id: t.id });
    const res = await complete(key.secret);
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(/^Your monthly user budget cannot cover this request/);
  });

  test('over the key’s budget: the key is named, and no level keeps a reservation', async () => {
    const t = await team({ monthly_budget_usd: 100 });
    const member = await makeUser('user');
    await join(t.id, member, 100);
    const key = await keyOf(member, { team_id: t.id, monthly_budget_usd: 0.000001 });
    const res = await complete(key.secret);
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(/^The monthly budget of this API key cannot cover this request/);
    expect(await spendOf({ kind: 'team', id: t.id })).toEqual({ spent_usd: 0, reserved_usd: 0 });
    expect(await spendOf(memberBudgetOwner(t.id, member.user.id))).toEqual({ spent_usd: 0, reserved_usd: 0 });
  });
});

describe('every level settled exactly once', () => {
  test('an answered team-key call is charged to the key, the user, the member and the team, and nothing stays reserved once settled', async () => {
    const t = await team({ monthly_budget_usd: 10 });
    const member = await makeUser('user');
    await join(t.id, member, 10);
    await setUserBudget(member.user.id, 10);
    const key = await keyOf(member, { team_id: t.id, monthly_budget_usd: 10 });
    const res = await complete(key.secret);
    expect(res.status).toBe(200);
    const cost = costOf(res);
    // Before the settle each level holds the bound; after it, the true cost.
    expect((await spendOf({ kind: 'team', id: t.id })).reserved_usd).toBeGreaterThanOrEqual(cost);
    await drainStream();
    for (const owner of [
      { kind: 'key', id: key.id },
      { kind: 'user', id: member.user.id },
      memberBudgetOwner(t.id, member.user.id),
      { kind: 'team', id: t.id },
    ] as BudgetOwner[]) {
      expect(await spendOf(owner)).toEqual({ spent_usd: cost, reserved_usd: 0 });
    }
  });

  test("a personal key's call counts in each of the caller's teams, but not in a team they are not in", async () => {
    const [a, b, other] = await Promise.all([team(), team(), team()]);
    const member = await makeUser('user');
    await join(a.id, member);
    await join(b.id, member);
    const key = await keyOf(member);
    const res = await complete(key.secret);
    expect(res.status).toBe(200);
    await drainStream();
    for (const id of [a.id, b.id]) expect((await spendOf({ kind: 'team', id })).spent_usd).toBe(costOf(res));
    expect((await spendOf({ kind: 'team', id: other.id })).spent_usd).toBe(0);
  });

  test('a team key of a member who left the team is refused (401) before anything is held', async () => {
    const t = await team({ monthly_budget_usd: 10 });
    const member = await makeUser('user');
    await join(t.id, member);
    const key = await keyOf(member, { team_id: t.id });
    // The removal revokes the key right after the membership goes; the guard refuses it either way.
    const removed = await call(removeMemberFn as Handler, {
      method: 'DELETE',
      token: admin.token,
      pathParameters: { teamId: t.id, userId: member.user.id },
    });
    expect(removed.status).toBe(200);
    const res = await complete(key.secret);
    expect(res.status).toBe(401);
    expect(await spendOf({ kind: 'team', id: t.id })).toEqual({ spent_usd: 0, reserved_usd: 0 });
  });
});

describe('concurrency', () => {
  test('100 concurrent calls against a tiny team budget, with generous key and user budgets: the team never passes its budget, and every level records exactly the answered calls', async () => {
    // One call costs at most about $0.0003 (max_tokens 100): room for a handful.
    const budget = 0.0015;
    const t = await team({ monthly_budget_usd: budget });
    const [m1, m2] = await Promise.all([makeUser('user'), makeUser('user')]);
    await Promise.all([join(t.id, m1, 100), join(t.id, m2, 100)]);
    await Promise.all([setUserBudget(m1.user.id, 100), setUserBudget(m2.user.id, 100)]);
    const [k1, k2] = await Promise.all([
      keyOf(m1, { team_id: t.id, monthly_budget_usd: 100 }),
      keyOf(m2, { team_id: t.id, monthly_budget_usd: 100 }),
    ]);
    const keyOfCall = (i: number) => (i % 2 ? k1 : k2);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => complete(keyOfCall(i).secret, { user: `c${i}` })));
    const answered = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(answered.length + refused.length).toBe(100);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.body.error.message).toMatch(new RegExp(`team '${t.name}'`));
    await drainStream();
    const team_ = await spendOf({ kind: 'team', id: t.id });
    expect(team_).toEqual({ spent_usd: sum(answered.map(costOf)), reserved_usd: 0 });
    expect(team_.spent_usd).toBeLessThanOrEqual(budget);
    const byKey = (k: { id: string }) => sum(results.filter((r, i) => r.status === 200 && keyOfCall(i).id === k.id).map(costOf));
    expect(await spendOf({ kind: 'key', id: k1.id })).toEqual({ spent_usd: byKey(k1), reserved_usd: 0 });
    expect(await spendOf({ kind: 'user', id: m2.user.id })).toEqual({ spent_usd: byKey(k2), reserved_usd: 0 });
    expect(await spendOf(memberBudgetOwner(t.id, m1.user.id))).toEqual({ spent_usd: byKey(k1), reserved_usd: 0 });
  });
});

describe('session chat', () => {
  test("a member's chat turn is refused by their team's spent budget (429 naming the team), and an answered one is charged to the team and the member", async () => {
    const t = await team({ monthly_budget_usd: 10 });
    const member = await makeUser('user');
    await join(t.id, member, 10);
    const conversationId = await newConversation(member.token, resource);
    const turn = () =>
      call(postThread as Handler, { method: 'POST', token: member.token, body: { message: 'Hello there', conversationId, resourceId: resource.id } });
    expect((await turn()).status).toBe(200);
    const cost = (await call(usageCurrent as Handler, { token: member.token })).body.mtd.cost_usd;
    expect(cost).toBeGreaterThan(0);
    const teamSpend = await spendOf({ kind: 'team', id: t.id });
    expect(teamSpend).toEqual({ spent_usd: cost, reserved_usd: 0 });
    expect(await spendOf(memberBudgetOwner(t.id, member.user.id))).toEqual(teamSpend);

    const teamPatch = await call(updateTeamFn as Handler, {
      method: 'PATCH',
      token: admin.token,
      pathParameters: { teamId: t.id },
      body: { monthly_budget_usd: teamSpend.spent_usd },
    });
    expect(teamPatch.status).toBe(200);
    const refused = await turn();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(new RegExp(`^The monthly budget of team '${t.name}' cannot cover this message`));
  });
});

describe('usage of a team (GET /api/usage/current?teamId=)', () => {
  test("counts the team's calls and its members' chat turns; the caller's own unsettled call at once; members and admins only", async () => {
    const t = await team();
    const member = await makeUser('user');
    await join(t.id, member);
    const key = await keyOf(member, { team_id: t.id });
    const res = await complete(key.secret);
    const usage = (token: string) => call(usageCurrent as Handler, { token, query: { teamId: t.id } });
    // Not settled yet: the caller's own pending call is counted.
    const before = await usage(member.token);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ scope: 'team', mtd: { requests: 1, cost_usd: costOf(res) } });
    await drainStream();
    expect((await usage(admin.token)).body.mtd).toMatchObject({ requests: 1, cost_usd: costOf(res) });
    const conversationId = await newConversation(member.token, resource);
    const turn = await call(postThread as Handler, {
      method: 'POST',
      token: member.token,
      body: { message: 'Hello there', conversationId, resourceId: resource.id },
    });
    expect(turn.status).toBe(200);
    expect((await usage(member.token)).body.mtd.requests).toBe(2);
    const stranger = await makeUser('user');
    expect((await usage(stranger.token)).status).toBe(404);
    expect((await call(usageCurrent as Handler, { token: member.token, query: { teamId: t.id, scope: 'all' } })).status).toBe(400);
  });
});
