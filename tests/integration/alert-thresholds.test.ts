/**
 * Alert thresholds on every budget (issue 34): set in the same PATCH as the budget (a key's, a team's,
 * a member's, a user's by an admin), checked alike everywhere (1 to 5 distinct fractions in (0, 1]),
 * stored sorted, and shown in every GET answer of the budget's owner: its own, or the default [0.8, 1].
 * Endpoints' thresholds, which the reconciler judges, are pinned in guardrails.test.ts.
 */
import { handler as getUserFn } from '../../functions/admin/get-user';
import { handler as listUsersFn } from '../../functions/admin/list-users';
import { handler as updateUserFn } from '../../functions/admin/update-user';
import { handler as listKeysFn } from '../../functions/keys/list';
import { handler as updateKeyFn } from '../../functions/keys/update';
import { handler as getTeamFn } from '../../functions/teams/get';
import { handler as listMembersFn } from '../../functions/teams/list-members';
import { handler as listTeamsFn } from '../../functions/teams/list';
import { handler as updateMemberFn } from '../../functions/teams/update-member';
import { handler as updateTeamFn } from '../../functions/teams/update';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { createTeam, joinTeam, keyOf, type Caller } from './levels-fixtures';

let superAdmin: Caller;
let admin: Caller;
let member: Caller;
let teamId: string;
let keyId: string;

beforeAll(async () => {
  [superAdmin, admin, member] = await Promise.all([makeUser('super_admin'), makeUser('admin'), makeUser('user')]);
  teamId = (await createTeam(admin, 'thresholds')).id;
  await joinTeam(admin, teamId, member, 5);
  keyId = (await keyOf(member)).id;
});

const patchUser = (body: unknown) =>
  call(updateUserFn as Handler, { method: 'PATCH', token: superAdmin.token, pathParameters: { userId: member.user.id }, body });

describe('the admin user PATCH', () => {
  test('sets custom thresholds with the budget, stored sorted, and GET and the list show them', async () => {
    const res = await patchUser({ monthly_budget_usd: 40, alert_thresholds: [1, 0.5, 0.9] });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ monthly_budget_usd: 40, alert_thresholds: [0.5, 0.9, 1] });
    const got = await call(getUserFn as Handler, { token: superAdmin.token, pathParameters: { userId: member.user.id } });
    expect(got.body.user.alert_thresholds).toEqual([0.5, 0.9, 1]);
    const list = await call(listUsersFn as Handler, { token: superAdmin.token, query: { limit: '100' } });
    const users = list.body.users as { id: string; alert_thresholds: number[] }[];
    expect(users.find((u) => u.id === member.user.id)?.alert_thresholds).toEqual([0.5, 0.9, 1]);
    expect(users.find((u) => u.id === admin.user.id)?.alert_thresholds).toEqual([0.8, 1]);
  });

  test('null restores the default, and a PATCH without them leaves them as they are', async () => {
    await patchUser({ alert_thresholds: [0.25] });
    expect((await patchUser({ name: 'Renamed' })).body.user.alert_thresholds).toEqual([0.25]);
    expect((await patchUser({ alert_thresholds: null })).body.user.alert_thresholds).toEqual([0.8, 1]);
  });

  test.each([
    ['an empty list', []],
    ['a repeated threshold', [0.5, 0.5]],
    ['more than five', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]],
    ['zero', [0, 1]],
    ['more than the budget', [0.8, 1.2]],
    ['a percentage instead of a fraction', [80]],
    ['text', ['0.8']],
    ['a number alone', 0.8],
  ])('%s is a 400 in the spec’s shape, and nothing is stored', async (_what, thresholds) => {
    await patchUser({ alert_thresholds: [0.7] });
    const res = await patchUser({ monthly_budget_usd: 99, alert_thresholds: thresholds });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: expect.stringContaining('alert_thresholds') });
    const got = await call(getUserFn as Handler, { token: superAdmin.token, pathParameters: { userId: member.user.id } });
    expect(got.body.user).toMatchObject({ monthly_budget_usd: 40, alert_thresholds: [0.7] });
  });
});

describe('thresholds in the answers of every budget', () => {
  test("a key's: the list shows the default until a PATCH sets others, and then those", async () => {
    const before = await call(listKeysFn as Handler, { token: member.token, query: { limit: '100' } });
    expect(before.body.keys.find((k: { id: string }) => k.id === keyId).alert_thresholds).toEqual([0.8, 1]);
    const set = await call(updateKeyFn as Handler, {
      method: 'PATCH',
      token: member.token,
      pathParameters: { keyId },
      body: { alert_thresholds: [0.95, 0.6] },
    });
    expect(set.body.key.alert_thresholds).toEqual([0.6, 0.95]);
    const after = await call(listKeysFn as Handler, { token: member.token, query: { limit: '100' } });
    expect(after.body.keys.find((k: { id: string }) => k.id === keyId).alert_thresholds).toEqual([0.6, 0.95]);
    const refused = await call(updateKeyFn as Handler, {
      method: 'PATCH',
      token: member.token,
      pathParameters: { keyId },
      body: { alert_thresholds: [0.6, 0.6] },
    });
    expect(refused.status).toBe(400);
  });

  test('a key created with thresholds beside its budget answers and lists them sorted', async () => {
    const { id } = await keyOf(member, { name: 'alerting', monthly_budget_usd: 3, alert_thresholds: [1, 0.75] });
    const list = await call(listKeysFn as Handler, { token: member.token, query: { limit: '100' } });
    expect(list.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({ monthly_budget_usd: 3, alert_thresholds: [0.75, 1] });
  });

  test("a team's and a member's: GET, the lists and the PATCH answers", async () => {
    const team = await call(updateTeamFn as Handler, {
      method: 'PATCH',
      token: admin.token,
      pathParameters: { teamId },
      body: { monthly_budget_usd: 100, alert_thresholds: [0.9, 0.5] },
    });
    expect(team.body.team.alert_thresholds).toEqual([0.5, 0.9]);
    expect((await call(getTeamFn as Handler, { token: member.token, pathParameters: { teamId } })).body.team.alert_thresholds).toEqual([0.5, 0.9]);
    const teams = await call(listTeamsFn as Handler, { token: member.token, query: { limit: '100' } });
    expect(teams.body.teams.find((t: { id: string }) => t.id === teamId).alert_thresholds).toEqual([0.5, 0.9]);

    const listMember = async () =>
      (await call(listMembersFn as Handler, { token: admin.token, pathParameters: { teamId }, query: { limit: '100' } })).body.members.find(
        (m: { user_id: string }) => m.user_id === member.user.id,
      );
    expect((await listMember()).alert_thresholds).toEqual([0.8, 1]);
    const set = await call(updateMemberFn as Handler, {
      method: 'PATCH',
      token: admin.token,
      pathParameters: { teamId, userId: member.user.id },
      body: { alert_thresholds: [1] },
    });
    expect(set.body.member.alert_thresholds).toEqual([1]);
    expect((await listMember()).alert_thresholds).toEqual([1]);
  });
});
