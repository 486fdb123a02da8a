import { handler as createUser } from '../../functions/admin/create-user';
import { handler as updateUser } from '../../functions/admin/update-user';
import { handler as listAudit } from '../../functions/admin/list-audit';
import { handler as awsCredentials } from '../../functions/auth/aws-credentials';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

describe('audit log', () => {
  test('user changes and credential reads are recorded with actor, action, target and outcome, newest first', async () => {
    const boss = await makeUser('super_admin');
    const admin = await makeUser('admin');
    const user = await makeUser('user');
    const created = await call(createUser as Handler, {
      method: 'POST',
      token: boss.token,
      body: { username: 'audited-one', email: 'audited-one@example.com', name: 'A', role: 'user', password: 'long-enough-pw' },
    });
    expect(created.status).toBe(201);
    await call(updateUser as Handler, {
      method: 'PATCH',
      token: boss.token,
      pathParameters: { userId: created.body.user.id },
      body: { role: 'admin' },
    });
    await call(awsCredentials as Handler, { token: admin.token });
    await call(awsCredentials as Handler, { token: user.token }); // refused: recorded as a failure

    const res = await call(listAudit as Handler, { token: boss.token });
    expect(res.status).toBe(200);
    const entries = res.body.entries as {
      action: string;
      actor: { username: string };
      target?: string;
      outcome: string;
      status: number;
      at: string;
    }[];
    expect(entries.map((e) => [e.action, e.actor.username, e.outcome, e.status])).toEqual([
      ['credentials.read.cloud', user.user.username, 'failure', 403],
      ['credentials.read.cloud', admin.user.username, 'success', 200],
      ['user.update', boss.user.username, 'success', 200],
      ['user.create', boss.user.username, 'success', 201],
    ]);
    expect(entries[2]?.target).toBe(created.body.user.id);
    expect(entries[3]?.target).toBe('audited-one');
    expect(
      [...entries]
        .map((e) => e.at)
        .sort()
        .reverse(),
    ).toEqual(entries.map((e) => e.at));
  });

  test('a refused request whose target field is not text is still recorded, its target as the JSON the client sent', async () => {
    const boss = await makeUser('super_admin');
    const refused = await call(deployManaged as Handler, { method: 'POST', token: boss.token, body: { modelId: 'x', endpointName: 12345 } });
    expect(refused.status).toBe(400);
    const res = await call(listAudit as Handler, { token: boss.token, query: { limit: '1' } });
    expect(res.body.entries[0]).toMatchObject({ action: 'deploy.managed', target: '12345', outcome: 'failure', status: 400 });
  });

  test('only a super_admin may read the audit log', async () => {
    const admin = await makeUser('admin');
    expect((await call(listAudit as Handler, { token: admin.token })).status).toBe(403);
  });

  test('the audit log pages with a cursor', async () => {
    const boss = await makeUser('super_admin');
    for (let i = 0; i < 3; i++) await call(awsCredentials as Handler, { token: boss.token });
    const first = await call(listAudit as Handler, { token: boss.token, query: { limit: '2' } });
    expect(first.body.entries).toHaveLength(2);
    const second = await call(listAudit as Handler, { token: boss.token, query: { limit: '2', cursor: first.body.nextCursor } });
    expect(second.status).toBe(200);
    expect(second.body.entries[0].id).not.toBe(first.body.entries[1].id);
  });

  test('without a limit a page holds 50 entries, the default docs/openapi.yaml states', async () => {
    const boss = await makeUser('super_admin');
    await Promise.all(Array.from({ length: 51 }, () => call(awsCredentials as Handler, { token: boss.token })));
    const res = await call(listAudit as Handler, { token: boss.token });
    expect(res.body.entries).toHaveLength(50);
    expect(res.body.nextCursor).toEqual(expect.any(String));
  });
});
