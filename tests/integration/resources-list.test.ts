import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { handler as deployHosted } from '../../functions/deploy/hosted';
import { handler as deployDedicated } from '../../functions/deploy/dedicated';
import { handler as list } from '../../functions/resources/list';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

// Integration calls go through DynamoDB Local and the emulator; a loaded machine needs headroom.
jest.setTimeout(60_000);

/** GET /api/resources: newest first, paginated, filtered by type and status. One table for this file. */

let admin: string;
let user: string;
const ids: Record<string, string[]> = { managed: [], hosted: [], dedicated: [] };

beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  user = (await makeUser('user')).token;
  const post = (handler: unknown, body: Record<string, unknown>) => call(handler as Handler, { method: 'POST', token: admin, body });
  // Sequential, so creation order is known.
  for (let i = 0; i < 3; i++) {
    ids.managed!.push((await post(deployManaged, { modelId: 'amazon.nova-lite-v1:0', endpointName: `m${i}`, dryRun: false })).body.id);
    ids.hosted!.push((await post(deployHosted, { modelId: 'meta/llama-3.1-8b-instruct', endpointName: `h${i}` })).body.id);
    const d = await post(deployDedicated, {
      endpointName: `list-${randomUUID().slice(0, 8)}`,
      instanceType: 'ml.m5.xlarge',
      inferenceImage: 'img:1',
      dryRun: false,
    });
    ids.dedicated!.push(d.body.id);
  }
});

const get = (query: Record<string, string> = {}, token = user) => call(list as Handler, { token, query });

test('any user lists every tracked resource, newest first, with the spec 2.3 fields', async () => {
  const res = await get();
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ success: true, count: 9, nextCursor: null });
  const created = res.body.resources.map((r: { created_at: string }) => r.created_at);
  expect(created).toEqual([...created].sort().reverse());
  expect(res.body.resources[0].id).toBe(ids.dedicated!.at(-1));
  expect(Object.keys(res.body.resources[0])).toContain('endpoint_url');
  expect(res.raw).not.toMatch(/"PK"|GSI1|chat_count|deploy_state/);
});

test('pages with limit and cursor cover every resource exactly once', async () => {
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await get({ limit: '4', ...(cursor ? { cursor } : {}) });
    expect(res.body.resources.length).toBeLessThanOrEqual(4);
    seen.push(...res.body.resources.map((r: { id: string }) => r.id));
    cursor = res.body.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  expect(pages).toBe(3);
  expect(new Set(seen).size).toBe(9);
});

test('type filters to one platform', async () => {
  const res = await get({ type: 'hosted' });
  expect(res.body.resources.map((r: { id: string }) => r.id)).toEqual([...ids.hosted!].reverse());
});

test('status filters on the stored status, across pages', async () => {
  const creating = await get({ status: 'Creating', limit: '2' });
  expect(creating.body.resources.every((r: { type: string; status: string }) => r.type === 'dedicated' && r.status === 'Creating')).toBe(true);
  expect(creating.body.count).toBe(2);
  const rest = await get({ status: 'Creating', limit: '2', cursor: creating.body.nextCursor });
  expect(rest.body.count).toBe(1);
  const inService = await get({ status: 'InService', type: 'managed' });
  expect(inService.body.count).toBe(3);
});

test('an unknown status or type, or a forged cursor, is 400', async () => {
  expect((await get({ status: 'Running' })).status).toBe(400);
  expect((await get({ type: 'cloud' })).status).toBe(400);
  expect((await get({ cursor: Buffer.from('{"PK":"USER#1"}').toString('base64url') })).status).toBe(400);
});

test('no token is 401', async () => {
  expect((await call(list as Handler, {})).status).toBe(401);
});
