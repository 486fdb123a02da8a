/**
 * Who may call a resource's model (lib/calls/access.ts): admins always; anyone else when the resource
 * is open to everyone, names them, or names a team of theirs. A dedicated endpoint bills its owner by
 * the hour and costs its callers nothing, so it is for admins only until an admin grants more (PUT
 * /api/resources/{id}/access); so is one tracked before access existed. Refused on /v1 as OpenAI
 * refuses a model a key cannot use (404 model_not_found), in session chat with 403.
 */
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler as createKey } from '../../functions/keys/create';
import { handler as listModelsFn } from '../../functions/gateway/models';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as threadPost } from '../../functions/chat/thread-post';
import { handler as legacyPost } from '../../functions/chat/legacy-post';
import { handler as deployDedicated } from '../../functions/deploy/dedicated';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { handler as setAccessFn } from '../../functions/resources/access';
import { handler as statusFn } from '../../functions/resources/status';
import { handler as listFn } from '../../functions/resources/list';
import { handler as auditFn } from '../../functions/admin/list-audit';
import { handler as createTeamFn } from '../../functions/teams/create';
import { handler as addMemberFn } from '../../functions/teams/add-member';
import { handler as removeMemberFn } from '../../functions/teams/remove-member';
import { TABLE, db } from '../../tables/client';
import { resourceKey, type Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { HOSTED_MODEL, MANAGED_MODEL, dedicatedResource, listed, newConversation, putResource } from './chat-fixtures';

jest.setTimeout(120_000);

type Person = Awaited<ReturnType<typeof makeUser>>;

const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

let admin: Person;
let superAdmin: Person;
beforeAll(async () => {
  [admin, superAdmin] = await Promise.all([makeUser('admin'), makeUser('super_admin')]);
});

async function keyOf(person: Person): Promise<string> {
  const res = await call(createKey as Handler, { method: 'POST', token: person.token, body: { name: 'k' } });
  if (res.status !== 201) throw new Error(`key not created: ${res.raw}`);
  return res.body.key as string;
}
const complete = (key: string, model: string) =>
  call(completions as Handler, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: { model, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 20 },
  });
const modelIds = async (key: string) =>
  ((await call(listModelsFn as Handler, { headers: { authorization: `Bearer ${key}` } })).body.data as { id: string }[]).map((m) => m.id);
const setAccess = (resourceId: string, body: unknown, token = admin.token) =>
  call(setAccessFn as Handler, { method: 'PUT', token, pathParameters: { resourceId }, body });
const statusOf = (resourceId: string, token: string) => call(statusFn as Handler, { token, pathParameters: { resourceId } });
const storedAccess = async (id: string) =>
  (await db.send(new GetCommand({ TableName: TABLE, Key: resourceKey(id), ConsistentRead: true }))).Item?.access;

/** A dedicated endpoint on the emulator, tracked without any access attribute (as before access existed). */
const legacyDedicated = () => listed(dedicatedResource({ access: null }));

async function teamWith(member: Person): Promise<string> {
  const team = (await call(createTeamFn as Handler, { method: 'POST', token: admin.token, body: { name: uniqueName('team') } })).body.team;
  const added = await call(addMemberFn as Handler, {
    method: 'POST',
    token: admin.token,
    pathParameters: { teamId: team.id },
    body: { user_id: member.user.id, role: 'member' },
  });
  if (added.status !== 201) throw new Error(`member not added: ${added.raw}`);
  return team.id as string;
}

describe('the defaults', () => {
  test("a new dedicated deploy is for admins only: a user's key gets 404 model_not_found, an admin's key is answered", async () => {
    const name = uniqueName('acc');
    const deployed = await call(deployDedicated as Handler, {
      method: 'POST',
      token: admin.token,
      body: { endpointName: name, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, dryRun: false },
    });
    expect(deployed.status).toBe(200);
    expect((await statusOf(deployed.body.id, admin.token)).body.resource.status).toBe('InService');
    expect(await storedAccess(deployed.body.id)).toEqual({ everyone: false, user_ids: [], team_ids: [] });

    const user = await makeUser('user');
    const refused = await complete(await keyOf(user), name);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(refused.body.error.message).toBe(`The model '${name}' does not exist or this API key may not use it (GET /v1/models lists them)`);
    expect((await complete(await keyOf(admin), name)).status).toBe(200);
  });

  test('a new managed deploy is open to everyone', async () => {
    const name = uniqueName('open');
    const deployed = await call(deployManaged as Handler, {
      method: 'POST',
      token: admin.token,
      body: { modelId: MANAGED_MODEL, endpointName: name, dryRun: false },
    });
    expect(deployed.status).toBe(200);
    expect(await storedAccess(deployed.body.id)).toEqual({ everyone: true, user_ids: [], team_ids: [] });
    expect((await complete(await keyOf(await makeUser('user')), name)).status).toBe(200);
  });

  test('a dedicated resource tracked before access existed is for admins only; managed and hosted ones stay open', async () => {
    const [dedicated, managed, hosted] = await Promise.all([
      legacyDedicated(),
      listed(putResource({ type: 'managed', model_id: MANAGED_MODEL, model_name: MANAGED_MODEL, access: null })),
      listed(putResource({ type: 'hosted', model_id: HOSTED_MODEL, model_name: HOSTED_MODEL, access: null })),
    ]);
    expect(await Promise.all([dedicated, managed, hosted].map((r) => storedAccess(r.id)))).toEqual([null, null, null]);
    const user = await makeUser('user');
    const key = await keyOf(user);
    expect((await complete(key, dedicated.endpoint_name)).status).toBe(404);
    expect((await complete(key, managed.endpoint_name)).status).toBe(200);
    expect((await complete(key, hosted.endpoint_name)).status).toBe(200);
    expect((await complete(await keyOf(superAdmin), dedicated.endpoint_name)).status).toBe(200);
  });
});

describe('granting', () => {
  let dedicated: Resource;
  beforeAll(async () => {
    dedicated = await legacyDedicated();
  });

  test("granted to a user, their key is answered and /v1/models lists it; another user's key still gets 404 and no listing", async () => {
    const granted = await makeUser('user');
    const other = await makeUser('user');
    const [grantedKey, otherKey] = await Promise.all([keyOf(granted), keyOf(other)]);
    expect(await modelIds(grantedKey)).not.toContain(dedicated.endpoint_name);

    expect((await setAccess(dedicated.id, { everyone: false, user_ids: [granted.user.id] })).status).toBe(200);
    expect((await complete(grantedKey, dedicated.endpoint_name)).status).toBe(200);
    expect(await modelIds(grantedKey)).toContain(dedicated.endpoint_name);
    expect((await complete(otherKey, dedicated.endpoint_name)).body.error.code).toBe('model_not_found');
    expect(await modelIds(otherKey)).not.toContain(dedicated.endpoint_name);
  });

  test('granted to a team, its members are answered; a member removed from the team is refused at once', async () => {
    const member = await makeUser('user');
    const teamId = await teamWith(member);
    const key = await keyOf(member);
    expect((await complete(key, dedicated.endpoint_name)).status).toBe(404);

    expect((await setAccess(dedicated.id, { everyone: false, team_ids: [teamId] })).status).toBe(200);
    expect((await complete(key, dedicated.endpoint_name)).status).toBe(200);
    expect(await modelIds(key)).toContain(dedicated.endpoint_name);

    const removed = await call(removeMemberFn as Handler, {
      method: 'DELETE',
      token: admin.token,
      pathParameters: { teamId, userId: member.user.id },
    });
    expect(removed.status).toBe(200);
    expect((await complete(await keyOf(member), dedicated.endpoint_name)).status).toBe(404);
  });

  test('everyone: true opens it to every user, and everyone: false closes it again', async () => {
    const key = await keyOf(await makeUser('user'));
    expect((await setAccess(dedicated.id, { everyone: true })).status).toBe(200);
    expect((await complete(key, dedicated.endpoint_name)).status).toBe(200);
    expect((await setAccess(dedicated.id, { everyone: false })).status).toBe(200);
    expect((await complete(key, dedicated.endpoint_name)).status).toBe(404);
  });

  test('admins and super_admins are answered whatever the access says', async () => {
    expect((await setAccess(dedicated.id, { everyone: false })).status).toBe(200);
    expect((await complete(await keyOf(await makeUser('admin')), dedicated.endpoint_name)).status).toBe(200);
    expect((await complete(await keyOf(superAdmin), dedicated.endpoint_name)).status).toBe(200);
    expect(await modelIds(await keyOf(admin))).toContain(dedicated.endpoint_name);
  });
});

describe('session chat', () => {
  test('a turn on a resource the caller may not use is 403 in the thread shape, naming the resource and saying to ask an admin; once granted it is answered', async () => {
    const dedicated = await legacyDedicated();
    const user = await makeUser('user');
    const conversationId = await newConversation(user.token, dedicated);
    const body = { message: 'Hello', conversationId, resourceId: dedicated.id };
    const res = await call(threadPost as Handler, { method: 'POST', token: user.token, body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: `You may not use the resource '${dedicated.name}': ask an admin to grant you access to it`,
      threadId: '',
      messages: [],
    });
    const legacy = await call(legacyPost as Handler, { method: 'POST', token: user.token, body });
    expect(legacy.status).toBe(403);
    expect(legacy.body).toEqual({
      success: false,
      error: `You may not use the resource '${dedicated.name}': ask an admin to grant you access to it`,
    });

    expect((await setAccess(dedicated.id, { everyone: false, user_ids: [user.user.id] })).status).toBe(200);
    expect((await call(threadPost as Handler, { method: 'POST', token: user.token, body })).status).toBe(200);
  });
});

describe('the idle timer', () => {
  test('a granted /v1 call is activity (last_chat_at moves); a refused one reaches no model and is not', async () => {
    const dedicated = await legacyDedicated();
    const refusedKey = await keyOf(await makeUser('user'));
    expect((await complete(refusedKey, dedicated.endpoint_name)).status).toBe(404);
    await drainStream();
    const before = await statusOf(dedicated.id, admin.token);
    expect(before.body.guardrails).toMatchObject({ last_chat_at: null, idle_activity: ['session_chat', 'gateway', 'direct_invocations'] });

    const answered = await complete(await keyOf(admin), dedicated.endpoint_name);
    expect(answered.status).toBe(200);
    await drainStream();
    const after = await statusOf(dedicated.id, admin.token);
    expect(Date.parse(after.body.guardrails.last_chat_at)).toBeGreaterThan(Date.parse(dedicated.created_at));
  });
});

describe('PUT /api/resources/{resourceId}/access', () => {
  let dedicated: Resource;
  beforeAll(async () => {
    dedicated = await legacyDedicated();
  });

  test('answers the access with the names, and admins see it in the status and the listing; users see neither', async () => {
    const granted = await makeUser('user');
    const teamId = await teamWith(await makeUser('user'));
    const res = await setAccess(dedicated.id, { everyone: false, user_ids: [granted.user.id], team_ids: [teamId] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      resourceId: dedicated.id,
      access: {
        everyone: false,
        user_ids: [granted.user.id],
        team_ids: [teamId],
        users: [{ id: granted.user.id, username: granted.user.username }],
        teams: [{ id: teamId, name: expect.stringMatching(/^team-/) }],
        default: false,
        updated_by: admin.user.username,
      },
    });
    expect((await statusOf(dedicated.id, admin.token)).body.access).toEqual(res.body.access);
    expect((await statusOf(dedicated.id, granted.token)).body.access).toBeUndefined();

    const listedBy = async (token: string) =>
      ((await call(listFn as Handler, { token, query: { limit: '100' } })).body.resources as any[]).find((r) => r.id === dedicated.id);
    expect((await listedBy(admin.token)).access).toMatchObject({ everyone: false, user_ids: [granted.user.id], team_ids: [teamId], default: false });
    expect((await listedBy(granted.token)).access).toBeUndefined();
  });

  test('the status shows a resource never set as its default', async () => {
    const other = await legacyDedicated();
    expect((await statusOf(other.id, admin.token)).body.access).toEqual({
      everyone: false,
      user_ids: [],
      team_ids: [],
      users: [],
      teams: [],
      default: true,
      updated_at: null,
      updated_by: null,
    });
  });

  test('is for admins: a user gets 403 and nothing changes; both attempts are audited with the ids', async () => {
    const user = await makeUser('user');
    const refused = await setAccess(dedicated.id, { everyone: true }, user.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: 'Admin privileges required' });
    expect((await storedAccess(dedicated.id))?.everyone).not.toBe(true);

    expect((await setAccess(dedicated.id, { everyone: false, user_ids: [user.user.id] })).status).toBe(200);
    const entries = ((await call(auditFn as Handler, { token: superAdmin.token, query: { limit: '100' } })).body.entries as any[]).filter(
      (e) => e.action === 'resource.access' && e.target?.startsWith(dedicated.id),
    );
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ outcome: 'failure', status: 403, actor: expect.objectContaining({ id: user.user.id }) }),
        expect.objectContaining({
          outcome: 'success',
          status: 200,
          actor: expect.objectContaining({ id: admin.user.id }),
          target: `${dedicated.id} everyone=false users=${user.user.id} teams=`,
        }),
      ]),
    );
  });

  test.each([
    ['a malformed user id', { everyone: false, user_ids: ['not-a-uuid'] }, 400, "Invalid field 'user_ids.0'"],
    ['a repeated user id', { everyone: false, user_ids: [] as string[] }, 400, "Invalid field 'user_ids'"],
    ['a missing everyone', { user_ids: [] }, 400, "Missing required field 'everyone'"],
    ['an unknown field', { everyone: true, roles: ['user'] }, 400, "Unknown field 'roles'"],
    ['an unknown user', { everyone: false, user_ids: [randomUUID()] }, 404, 'User not found'],
    ['an unknown team', { everyone: false, team_ids: [randomUUID()] }, 404, 'Team not found'],
  ])('%s is refused and nothing is written', async (what, body, status, error) => {
    if (what === 'a repeated user id') {
      const id = (await makeUser('user')).user.id;
      body = { everyone: false, user_ids: [id, id] };
    }
    const before = await storedAccess(dedicated.id);
    const res = await setAccess(dedicated.id, body);
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toContain(error);
    expect(await storedAccess(dedicated.id)).toEqual(before);
  });

  test('an unknown resource is 404', async () => {
    const res = await setAccess(randomUUID(), { everyone: true });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Resource not found' });
  });
});
