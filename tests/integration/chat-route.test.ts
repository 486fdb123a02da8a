import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DbMeter } from '../../bench/harness';
import { usdOf } from '../../core/money';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as getThread } from '../../functions/chat/thread-get';
import { handler as createRoute } from '../../functions/routes/create';
import { handler as getRoute } from '../../functions/routes/get';
import { handler as usageCurrent } from '../../functions/usage/current';
import { handler as updateUser } from '../../functions/admin/update-user';
import { monthOf, readSpend } from '../../tables/budgets';
import { db } from '../../tables/client';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { dedicatedResource, hostedResource, listed, newConversation, putResource } from './chat-fixtures';

/**
 * The spec's session chat through a route (issue 32 §5): `resourceId` may name a route, and the turn
 * goes through the same route attempts as /v1 (lib/calls/attempts.ts). The first target is a
 * dedicated endpoint of this file's own, throttled by an emulator fault scoped to this file's calls,
 * so no other file meets the fault.
 */

jest.setTimeout(60_000);

const CLOSED = { everyone: false, user_ids: [], team_ids: [] };

let admin: Awaited<ReturnType<typeof makeUser>>;
let chatter: Awaited<ReturnType<typeof makeUser>>;
let endpoint: Resource;
let hosted: Resource;
let conversationId: string;

async function emulator(method: string, path: string, body?: unknown) {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, any>;
}

async function route(targets: Resource[]) {
  const res = await call(createRoute as Handler, {
    method: 'POST',
    token: admin.token,
    body: { name: `chat-rt-${randomUUID().slice(0, 8)}`, strategy: 'priority', targets: targets.map((t) => ({ resource_id: t.id })) },
  });
  if (res.status !== 201) throw new Error(`route not created: ${res.raw}`);
  return res.body.route as { id: string; name: string };
}

const turn = (token: string, resourceId: string, conversation = conversationId) =>
  call(postThread as Handler, { method: 'POST', token, body: { message: 'Hello there', conversationId: conversation, resourceId } });

beforeAll(async () => {
  [admin, chatter, endpoint, hosted] = await Promise.all([
    makeUser('super_admin'),
    makeUser('user'),
    listed(dedicatedResource()),
    listed(hostedResource()),
  ]);
  conversationId = await newConversation(chatter.token, hosted);
  // A monthly budget: each attempt holds on it, so a hold a failed attempt left behind would show.
  const budget = await call(updateUser as Handler, {
    method: 'PATCH',
    token: admin.token,
    pathParameters: { userId: chatter.user.id },
    body: { monthly_budget_usd: 1 },
  });
  if (budget.status !== 200) throw new Error(`budget not set: ${budget.raw}`);
});

test('a turn through a route whose first target throttles is answered by the second, recorded and paid once, naming both', async () => {
  const created = await route([endpoint, hosted]);
  // Only this file's signed calls to its own endpoint meet the fault; one throttle is all it takes.
  const fault = await emulator('POST', '/faults', {
    target: 'InvokeEndpoint',
    model: endpoint.endpoint_name,
    fault: '429',
    count: 1,
    caller: process.env.SERVICE_CLOUD_ACCESS_KEY_ID,
  });
  const res = await turn(chatter.token, created.id);
  await emulator('DELETE', `/faults/${fault.id}`);

  expect(res.status).toBe(200);
  const [, reply] = res.body.messages;
  expect(reply.metadata).toMatchObject({ resource_id: hosted.id, route_id: created.id, route_name: created.name });

  // The thread shows the same: the turn is stored once, naming the route and the resource that answered.
  const thread = await call(getThread as Handler, { token: chatter.token, query: { threadId: res.body.threadId, conversationId } });
  expect(thread.body.messages).toHaveLength(2);
  expect(thread.body.messages[1].metadata).toEqual(reply.metadata);

  // The throttled target cools down for every instance.
  const shown = (await call(getRoute as Handler, { token: admin.token, pathParameters: { routeId: created.id } })).body.route;
  expect(shown.targets[0]).toMatchObject({ resource_id: endpoint.id, cooldown_reason: 'throttled' });

  // One call paid for, at the answering target's price, and no hold left behind by the failed attempt.
  const usage = (await call(usageCurrent as Handler, { token: chatter.token })).body.mtd;
  expect(usage.requests).toBe(1);
  expect(usage.cost_usd).toBeGreaterThan(0);
  const scope = { kind: 'user' as const, id: chatter.user.id };
  const { spent, reserved } = (await readSpend([scope], monthOf(new Date())))(scope);
  expect({ spent: usdOf(spent), reserved: usdOf(reserved) }).toEqual({ spent: usage.cost_usd, reserved: 0 });
});

test('a route with no target the user may use is 403 in the thread shape, and nothing is stored', async () => {
  const closed = await putResource({ type: 'hosted', model_id: 'meta/llama-3.1-8b-instruct', model_name: 'closed', access: CLOSED });
  const created = await route([closed]);
  const other = await makeUser('user');
  const conversation = await newConversation(other.token, hosted);
  const res = await turn(other.token, created.id, conversation);
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ success: false, error: expect.stringContaining(created.name), threadId: '', messages: [] });
  expect((await call(usageCurrent as Handler, { token: other.token })).body.mtd.requests).toBe(0);
});

test('an id that names neither a resource nor a route is 404', async () => {
  const res = await turn(chatter.token, randomUUID());
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ success: false, error: 'Resource not found', threadId: '', messages: [] });
});

test('a warm instance reads a route named by its id once per ROUTE_DEFINITION_TTL_SECONDS: the next turn reads its targets only', async () => {
  const created = await route([hosted]);
  const conversation = await newConversation(chatter.token, hosted);
  const routeReads = async () => {
    const meter = new DbMeter();
    meter.install(db);
    meter.record = true;
    try {
      const { result, meter: seen } = await meter.measure(() => turn(chatter.token, created.id, conversation));
      expect(result.status).toBe(200);
      return seen.records.filter((r) => r.command === 'GetItemCommand' && String(r.input.Key?.PK).startsWith('ROUTE#')).length;
    } finally {
      db.middlewareStack.remove('benchDbMeter');
    }
  };
  expect(await routeReads()).toBe(1);
  expect(await routeReads()).toBe(0);
});
