import { handler as createKeyFn } from '../../functions/keys/create';
import { handler as listKeysFn } from '../../functions/keys/list';
import { handler as updateKeyFn } from '../../functions/keys/update';
import { handler as revokeKeyFn } from '../../functions/keys/revoke';
import { handler as createTeamFn } from '../../functions/teams/create';
import { handler as getTeamFn } from '../../functions/teams/get';
import { handler as deleteTeamFn } from '../../functions/teams/delete';
import { handler as addMemberFn } from '../../functions/teams/add-member';
import { handler as removeMemberFn } from '../../functions/teams/remove-member';
import { handler as listModels } from '../../functions/gateway/models';
import { authorizeKey } from '../../lib/keys/authorize';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

type Caller = Awaited<ReturnType<typeof makeUser>>;
let seq = 0;
const createKey = (token: string, body: Record<string, unknown>) => call(createKeyFn as Handler, { method: 'POST', token, body });
const listKeys = (token: string, query: Record<string, string>) => call(listKeysFn as Handler, { token, query: { limit: '100', ...query } });
const patchKey = (token: string, keyId: string, body: Record<string, unknown>) =>
  call(updateKeyFn as Handler, { method: 'PATCH', token, pathParameters: { keyId }, body });
const revokeKey = (token: string, keyId: string) => call(revokeKeyFn as Handler, { method: 'DELETE', token, pathParameters: { keyId } });
const teamOf = (token: string, teamId: string) => call(getTeamFn as Handler, { token, pathParameters: { teamId } });
const deleteTeam = (token: string, teamId: string) => call(deleteTeamFn as Handler, { method: 'DELETE', token, pathParameters: { teamId } });
const models = (key: string) => call(listModels as Handler, { headers: { authorization: `Bearer ${key}` } });

let admin: Caller;
beforeAll(async () => {
  admin = await makeUser('admin');
});

async function team() {
  const created = await call(createTeamFn as Handler, {
    method: 'POST',
    token: admin.token,
    body: { name: `keys-${process.pid}-${seq++}-${Date.now().toString(36)}` },
  });
  const owner = await makeUser('user');
  const member = await makeUser('user');
  const add = (user: Caller, role: string) =>
    call(addMemberFn as Handler, {
      method: 'POST',
      token: admin.token,
      pathParameters: { teamId: created.body.team.id },
      body: { user_id: user.user.id, role },
    });
  await add(owner, 'owner');
  await add(member, 'member');
  return { id: created.body.team.id as string, owner, member };
}

describe('team keys', () => {
  test('a member creates a team key: it carries team_id and its limits, and its calls know both', async () => {
    const t = await team();
    const res = await createKey(t.member.token, { name: 'svc', team_id: t.id, rpm_limit: 60, tpm_limit: 90_000 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ team_id: t.id, rpm_limit: 60, tpm_limit: 90_000, user_id: t.member.user.id });
    const { key } = await authorizeKey({ authorization: `Bearer ${res.body.key}` });
    expect(key).toMatchObject({ team_id: t.id, rpm_limit: 60, tpm_limit: 90_000 });
    expect((await teamOf(t.owner.token, t.id)).body.team.active_keys).toBe(1);
  });

  test('someone who is not a member cannot create a key of the team (400 naming team_id), nor can an admin outside it', async () => {
    const t = await team();
    const stranger = await makeUser('user');
    const refused = await createKey(stranger.token, { name: 'x', team_id: t.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("Invalid field 'team_id': no such team");
    const byAdmin = await createKey(admin.token, { name: 'x', team_id: t.id });
    expect(byAdmin.status).toBe(400);
    expect(byAdmin.body.error).toBe("Invalid field 'team_id': you are not a member of this team");
    expect((await createKey(t.member.token, { name: 'x', team_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
  });

  test("the team's owners and admins list its keys; a plain member may not (403); the creator sees theirs in their own list", async () => {
    const t = await team();
    const key = (await createKey(t.member.token, { name: 'svc', team_id: t.id })).body;
    const byOwner = await listKeys(t.owner.token, { team_id: t.id });
    expect(byOwner.body.keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(byOwner.raw).not.toContain(key.key);
    expect((await listKeys(admin.token, { team_id: t.id })).body.keys).toHaveLength(1);
    expect((await listKeys(t.member.token, { team_id: t.id })).status).toBe(403);
    expect((await listKeys(t.member.token, {})).body.keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect((await listKeys(admin.token, { team_id: t.id, scope: 'all' })).status).toBe(400);
  });

  test("the team's owner changes and revokes a member's team key; another member gets 404", async () => {
    const t = await team();
    const other = await makeUser('user');
    await call(addMemberFn as Handler, {
      method: 'POST',
      token: admin.token,
      pathParameters: { teamId: t.id },
      body: { user_id: other.user.id, role: 'member' },
    });
    const key = (await createKey(t.member.token, { name: 'svc', team_id: t.id })).body;
    expect((await patchKey(other.token, key.id, { name: 'mine now' })).status).toBe(404);
    expect((await revokeKey(other.token, key.id)).status).toBe(404);
    const patched = await patchKey(t.owner.token, key.id, { rpm_limit: 10, tpm_limit: null });
    expect(patched.body.key).toMatchObject({ rpm_limit: 10, tpm_limit: null });
    expect((await revokeKey(t.owner.token, key.id)).status).toBe(200);
    expect((await models(key.key)).status).toBe(401);
    expect((await teamOf(t.owner.token, t.id)).body.team.active_keys).toBe(0);
  });

  test('the member who holds a team key cannot lift the bounds an owner set on it (403); renaming stays theirs', async () => {
    const t = await team();
    const key = (await createKey(t.member.token, { name: 'svc', team_id: t.id })).body;
    const bounded = await patchKey(t.owner.token, key.id, { monthly_budget_usd: 5, rpm_limit: 10, tpm_limit: 1000 });
    expect(bounded.status).toBe(200);
    for (const lift of [{ monthly_budget_usd: null }, { rpm_limit: 1000 }, { tpm_limit: null }, { resource_ids: null }, { expires_at: null }]) {
      const refused = await patchKey(t.member.token, key.id, lift);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe(`Only the team's owners and admins change a team key's ${Object.keys(lift)[0]}`);
    }
    expect((await patchKey(t.member.token, key.id, { name: 'renamed' })).body.key).toMatchObject({
      name: 'renamed',
      monthly_budget_usd: 5,
      rpm_limit: 10,
      tpm_limit: 1000,
    });
    expect((await patchKey(admin.token, key.id, { rpm_limit: null })).body.key.rpm_limit).toBeNull();
  });

  test("an owner cannot touch a member's personal key (404): only team keys are the team's", async () => {
    const t = await team();
    const personal = (await createKey(t.member.token, { name: 'mine' })).body;
    expect((await patchKey(t.owner.token, personal.id, { name: 'x' })).status).toBe(404);
    expect((await revokeKey(t.owner.token, personal.id)).status).toBe(404);
  });

  test('removing a member revokes their keys of that team at once, and only those', async () => {
    const t = await team();
    const teamKey = (await createKey(t.member.token, { name: 'svc', team_id: t.id })).body;
    const personal = (await createKey(t.member.token, { name: 'mine' })).body;
    const res = await call(removeMemberFn as Handler, {
      method: 'DELETE',
      token: t.owner.token,
      pathParameters: { teamId: t.id, userId: t.member.user.id },
    });
    expect(res.body.revoked_keys).toBe(1);
    expect((await models(teamKey.key)).body.error.message).toBe('This API key has been revoked');
    expect((await models(personal.key)).status).toBe(200);
    expect((await createKey(t.member.token, { name: 'again', team_id: t.id })).status).toBe(400);
  });

  test('a team with an active key cannot be deleted (409 saying how many); once revoked it can', async () => {
    const t = await team();
    const key = (await createKey(t.member.token, { name: 'svc', team_id: t.id })).body;
    const refused = await deleteTeam(admin.token, t.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('The team still has 1 active API key');
    expect((await teamOf(t.owner.token, t.id)).status).toBe(200);
    await revokeKey(t.member.token, key.id);
    expect((await deleteTeam(admin.token, t.id)).status).toBe(200);
    // The revoked key still lists for its creator, naming the team it was for.
    expect((await listKeys(t.member.token, {})).body.keys[0]).toMatchObject({ id: key.id, team_id: t.id, revoked_at: expect.any(String) });
  });
});

describe('rate limits on keys', () => {
  test('are stored and returned, PATCH-able, and null removes one', async () => {
    const { token } = await makeUser('user');
    const created = await createKey(token, { name: 'limited', rpm_limit: 100, tpm_limit: 5000 });
    expect(created.body).toMatchObject({ rpm_limit: 100, tpm_limit: 5000, team_id: null });
    const patched = await patchKey(token, created.body.id, { rpm_limit: null, tpm_limit: 6000 });
    expect(patched.body.key).toMatchObject({ rpm_limit: null, tpm_limit: 6000 });
    expect((await authorizeKey({ authorization: `Bearer ${created.body.key}` })).key).toMatchObject({ rpm_limit: null, tpm_limit: 6000 });
  });

  test('a limit below 1, fractional or above its maximum is a 400 naming the field', async () => {
    const { token } = await makeUser('user');
    for (const body of [{ rpm_limit: 0 }, { rpm_limit: 2.5 }, { rpm_limit: 1_000_001 }, { tpm_limit: 1_000_000_001 }]) {
      const res = await createKey(token, { name: 'x', ...body });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`'${Object.keys(body)[0]}'`);
    }
  });

  test('a key without limits (and every key made before them) reads null for both', async () => {
    const { token } = await makeUser('user');
    const created = await createKey(token, { name: 'plain' });
    expect(created.body).toMatchObject({ rpm_limit: null, tpm_limit: null, team_id: null });
  });
});
