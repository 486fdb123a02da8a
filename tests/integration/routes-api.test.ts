import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handler as listAudit } from '../../functions/admin/list-audit';
import { handler as createRoute } from '../../functions/routes/create';
import { handler as deleteRoute } from '../../functions/routes/delete';
import { handler as getRoute } from '../../functions/routes/get';
import { handler as listRoutes } from '../../functions/routes/list';
import { handler as updateRoute } from '../../functions/routes/update';
import { insertResource, removeResource, type Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, putResource } from './chat-fixtures';

/**
 * The routes' admin API (POST/GET /api/routes, GET/PATCH/DELETE /api/routes/{routeId}): what a route
 * answers with, who may do what, the shared name space with resources, and the audit log.
 */

jest.setTimeout(60_000);

let admin: Awaited<ReturnType<typeof makeUser>>;
let user: Awaited<ReturnType<typeof makeUser>>;
let chatA: Resource;
let chatB: Resource;
let embedder: Resource;
let adminsOnly: Resource;

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const create = (token: string, body: Record<string, unknown>) => call(createRoute as Handler, { method: 'POST', token, body });
const patch = (token: string, routeId: string, body: Record<string, unknown>) =>
  call(updateRoute as Handler, { method: 'PATCH', token, pathParameters: { routeId }, body });
const get = (token: string, routeId: string) => call(getRoute as Handler, { token, pathParameters: { routeId } });
const remove = (token: string, routeId: string) => call(deleteRoute as Handler, { method: 'DELETE', token, pathParameters: { routeId } });

beforeAll(async () => {
  [admin, user] = await Promise.all([makeUser('admin'), makeUser('user')]);
  [chatA, chatB, embedder, adminsOnly] = await Promise.all([
    listed(putResource({ type: 'managed', model_id: 'anthropic.claude-3-haiku-20240307-v1:0' })),
    listed(putResource({ type: 'hosted', model_id: 'meta/llama-3.1-8b-instruct' })),
    listed(putResource({ type: 'managed', model_id: 'amazon.titan-embed-text-v2:0' })),
    listed(putResource({ type: 'managed', model_id: 'meta.llama3-8b-instruct-v1:0', access: { everyone: false, user_ids: [], team_ids: [] } })),
  ]);
});

describe('POST /api/routes', () => {
  test('answers 201 with the route, its defaults, and each target with its endpoint name and no cooldown', async () => {
    const name = unique('route');
    const res = await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }, { resource_id: chatB.id }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      route: {
        id: expect.any(String),
        name,
        strategy: 'priority',
        kind: 'chat',
        cooldown_seconds: 30,
        retry_on: ['throttled', 'unavailable', 'timeout', 'not_in_service', 'context_window'],
        created_at: expect.any(String),
      },
    });
    expect(res.body.route.targets).toEqual([
      expect.objectContaining({ resource_id: chatA.id, weight: 1, endpoint_name: chatA.endpoint_name, cooldown_until: null, gone: false }),
      expect.objectContaining({ resource_id: chatB.id, weight: 1, endpoint_name: chatB.endpoint_name, cooldown_until: null, gone: false }),
    ]);
  });

  test('a name a resource or another route holds is 409, in any case', async () => {
    const name = unique('taken');
    expect((await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).status).toBe(201);
    const again = await create(admin.token, { name: name.toUpperCase(), strategy: 'weighted', targets: [{ resource_id: chatB.id }] });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/taken by a resource or another route/);
    const resourceName = unique('named');
    await listed(putResource({ type: 'hosted', model_id: 'meta/llama-3.1-8b-instruct', name: resourceName, endpoint_name: resourceName }));
    expect((await create(admin.token, { name: resourceName, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).status).toBe(409);
  });

  test('a resource cannot take a route’s name either (its deploy finds the name held)', async () => {
    const name = unique('first');
    expect((await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).status).toBe(201);
    const resource = { ...(await putResource({ type: 'managed', model_id: chatA.model_id })), name };
    await expect(insertResource(resource as never)).rejects.toMatchObject({ kind: 'NameTaken' });
  });

  test('targets of different kinds, unknown resources and duplicates are 400 naming the field, and nothing is written', async () => {
    const name = unique('bad');
    const mixed = await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }, { resource_id: embedder.id }] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error).toMatch(/same kind of call/);
    const unknown = await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: randomUUID() }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/targets\[0\]\.resource_id/);
    const twice = await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }, { resource_id: chatA.id }] });
    expect(twice.status).toBe(400);
    const badRetry = await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }], retry_on: ['sometimes'] });
    expect(badRetry.status).toBe(400);
    // The name is still free: nothing was written.
    expect((await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).status).toBe(201);
  });

  test('is for admins only: a user gets 403', async () => {
    const res = await create(user.token, { name: unique('mine'), strategy: 'priority', targets: [{ resource_id: chatA.id }] });
    expect(res.status).toBe(403);
  });
});

describe('reading, changing and deleting a route', () => {
  test('PATCH changes what it names and keeps the rest; a rename frees the old name', async () => {
    const name = unique('patched');
    const created = (await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).body.route;
    const renamed = unique('renamed');
    const res = await patch(admin.token, created.id, {
      name: renamed,
      strategy: 'weighted',
      targets: [
        { resource_id: chatB.id, weight: 3 },
        { resource_id: chatA.id, weight: 1 },
      ],
      cooldown_seconds: 5,
      retry_on: ['throttled'],
    });
    expect(res.status).toBe(200);
    expect(res.body.route).toMatchObject({ id: created.id, name: renamed, strategy: 'weighted', cooldown_seconds: 5, retry_on: ['throttled'] });
    expect(res.body.route.targets.map((t: { resource_id: string; weight: number }) => [t.resource_id, t.weight])).toEqual([
      [chatB.id, 3],
      [chatA.id, 1],
    ]);
    expect((await get(admin.token, created.id)).body.route.name).toBe(renamed);
    expect((await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).status).toBe(201);
    expect((await patch(user.token, created.id, { cooldown_seconds: 9 })).status).toBe(403);
  });

  test('a deleted resource stays listed in its routes as gone', async () => {
    const doomed = await listed(putResource({ type: 'hosted', model_id: 'meta/llama-3.1-8b-instruct' }));
    const created = (
      await create(admin.token, { name: unique('gone'), strategy: 'priority', targets: [{ resource_id: doomed.id }, { resource_id: chatA.id }] })
    ).body.route;
    await removeResource(doomed);
    const res = await get(admin.token, created.id);
    expect(res.body.route.targets[0]).toMatchObject({ resource_id: doomed.id, endpoint_name: doomed.endpoint_name, status: 'gone', gone: true });
    expect(res.body.route.targets[1]).toMatchObject({ resource_id: chatA.id, gone: false });
  });

  test('users see only routes with a target they may call, and only those targets', async () => {
    const open = (
      await create(admin.token, { name: unique('open'), strategy: 'priority', targets: [{ resource_id: adminsOnly.id }, { resource_id: chatA.id }] })
    ).body.route;
    const closed = (await create(admin.token, { name: unique('closed'), strategy: 'priority', targets: [{ resource_id: adminsOnly.id }] })).body
      .route;
    const mine = await get(user.token, open.id);
    expect(mine.status).toBe(200);
    expect(mine.body.route.targets.map((t: { resource_id: string }) => t.resource_id)).toEqual([chatA.id]);
    expect((await get(user.token, closed.id)).status).toBe(404);
    const ids = async (token: string) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await call(listRoutes as Handler, { token, query: { limit: '100', ...(cursor && { cursor }) } });
        seen.push(...page.body.routes.map((r: { id: string }) => r.id));
        cursor = page.body.nextCursor ?? undefined;
      } while (cursor);
      return seen;
    };
    const [theirs, all] = await Promise.all([ids(user.token), ids(admin.token)]);
    expect(theirs).toContain(open.id);
    expect(theirs).not.toContain(closed.id);
    expect(all).toEqual(expect.arrayContaining([open.id, closed.id]));
  });

  test('DELETE removes the route and frees its name; a second DELETE is 404; every change is audited', async () => {
    const name = unique('deleted');
    const created = (await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] })).body.route;
    expect((await remove(user.token, created.id)).status).toBe(403);
    expect((await remove(admin.token, created.id)).status).toBe(200);
    expect((await remove(admin.token, created.id)).status).toBe(404);
    expect((await get(admin.token, created.id)).status).toBe(404);
    const reborn = await create(admin.token, { name, strategy: 'priority', targets: [{ resource_id: chatA.id }] });
    expect(reborn.status).toBe(201);
    await patch(admin.token, reborn.body.route.id, { cooldown_seconds: 60 });
    const superAdmin = await makeUser('super_admin');
    const entries = (await call(listAudit as Handler, { token: superAdmin.token, query: { limit: '100' } })).body.entries as {
      action: string;
      actor: { id: string };
      outcome: string;
      target?: string;
    }[];
    const seen = entries
      .filter((e) => e.target === name || e.target === created.id || e.target === reborn.body.route.id)
      .map((e) => `${e.action}:${e.actor.id === admin.user.id ? 'admin' : 'user'}:${e.outcome}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        'route.create:admin:success',
        'route.delete:user:failure',
        'route.delete:admin:success',
        'route.delete:admin:failure',
        'route.update:admin:success',
      ]),
    );
  });
});
