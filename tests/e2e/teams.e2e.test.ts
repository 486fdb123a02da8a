/** Teams over HTTP (serverless-offline): every answer is checked against docs/openapi.yaml by the client. */
import { randomUUID } from 'node:crypto';
import { http, loginAsAdmin } from './http';

async function user(admin: string) {
  const tag = randomUUID().slice(0, 8);
  const created = await http('POST', '/api/admin/users', {
    token: admin,
    body: { username: `team-${tag}`, email: `team-${tag}@example.com`, name: 'Team member', role: 'user', password: 'e2e-password-1' },
  });
  const login = await http('POST', '/api/auth/login', { body: { username: `team-${tag}`, password: 'e2e-password-1' } });
  return { id: created.body.user.id as string, token: login.body.token as string };
}

test('an admin makes a team, its owner invites a member with a budget who accepts, the member makes a team key, the owner manages it, the team is deleted once its keys are revoked', async () => {
  const admin = await loginAsAdmin();
  const created = await http('POST', '/api/teams', {
    token: admin,
    body: { name: `e2e-${randomUUID().slice(0, 8)}`, monthly_budget_usd: 50, rpm_limit: 100 },
  });
  expect(created.status).toBe(201);
  const teamId = created.body.team.id as string;
  const [owner, member] = [await user(admin), await user(admin)];
  expect((await http('POST', `/api/teams/${teamId}/members`, { token: admin, body: { user_id: owner.id, role: 'owner' } })).status).toBe(201);
  // An owner enrols nobody directly (403); they invite, and the member joins by accepting.
  const refused = await http('POST', `/api/teams/${teamId}/members`, { token: owner.token, body: { user_id: member.id, role: 'member' } });
  expect(refused.status).toBe(403);
  const invited = await http('POST', `/api/teams/${teamId}/invitations`, {
    token: owner.token,
    body: { user_id: member.id, role: 'member', monthly_budget_usd: 5 },
  });
  expect(invited.status).toBe(201);
  const invitationId = invited.body.invitation.id as string;
  expect((await http('GET', `/api/teams/${teamId}/invitations`, { token: owner.token })).body.invitations).toHaveLength(1);
  const mine = await http('GET', '/api/teams/invitations', { token: member.token });
  expect(mine.body.invitations).toEqual([expect.objectContaining({ id: invitationId, team_id: teamId, status: 'pending' })]);
  const accepted = await http('POST', `/api/teams/${teamId}/invitations/${invitationId}/accept`, { token: member.token });
  expect(accepted.body.member).toMatchObject({ role: 'member', monthly_budget_usd: 5, spent_usd: 0, source: 'invitation' });

  const roster = await http('GET', `/api/teams/${teamId}/members`, { token: member.token });
  expect(roster.body.members).toHaveLength(2);
  expect((await http('GET', `/api/teams/${teamId}`, { token: member.token })).body.team.my_role).toBe('member');

  const key = await http('POST', '/api/keys', { token: member.token, body: { name: 'svc', team_id: teamId, rpm_limit: 30, tpm_limit: 30_000 } });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ team_id: teamId, rpm_limit: 30, tpm_limit: 30_000 });
  const listed = await http('GET', `/api/keys?team_id=${teamId}`, { token: owner.token });
  expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([key.body.id]);
  expect((await http('PATCH', `/api/keys/${key.body.id}`, { token: owner.token, body: { tpm_limit: null } })).body.key.tpm_limit).toBeNull();

  expect((await http('PATCH', `/api/teams/${teamId}`, { token: admin, body: { rpm_limit: null, tpm_limit: 5000 } })).body.team).toMatchObject({
    rpm_limit: null,
    tpm_limit: 5000,
  });
  const kept = await http('DELETE', `/api/teams/${teamId}`, { token: admin });
  expect(kept.status).toBe(409);
  expect((await http('DELETE', `/api/keys/${key.body.id}`, { token: owner.token })).status).toBe(200);
  expect((await http('DELETE', `/api/teams/${teamId}`, { token: admin })).status).toBe(200);
  expect((await http('GET', `/api/teams/${teamId}`, { token: admin })).status).toBe(404);
});

test('a declined and a withdrawn invitation are gone for both sides over HTTP', async () => {
  const admin = await loginAsAdmin();
  const teamId = (await http('POST', '/api/teams', { token: admin, body: { name: `e2e-${randomUUID().slice(0, 8)}` } })).body.team.id as string;
  const [a, b] = [await user(admin), await user(admin)];
  const ask = async (who: { id: string }) =>
    (await http('POST', `/api/teams/${teamId}/invitations`, { token: admin, body: { user_id: who.id, role: 'member' } })).body.invitation
      .id as string;
  const [toA, toB] = [await ask(a), await ask(b)];
  expect((await http('POST', `/api/teams/${teamId}/invitations/${toA}/decline`, { token: a.token })).body.invitation.status).toBe('declined');
  expect((await http('DELETE', `/api/teams/${teamId}/invitations/${toB}`, { token: admin })).body.invitation.status).toBe('revoked');
  expect((await http('POST', `/api/teams/${teamId}/invitations/${toB}/accept`, { token: b.token })).status).toBe(404);
  expect((await http('GET', `/api/teams/${teamId}/invitations`, { token: admin })).body.invitations).toEqual([]);
  expect((await http('GET', `/api/teams/${teamId}/members`, { token: admin })).body.members).toEqual([]);
});
