/**
 * A user's monthly budget covers their session chat as it covers their /v1 calls (issue 14): a turn
 * reserves an upper bound of its cost before the model is asked and settles to the true cost in the
 * transaction that records it.
 */
import { usdOf } from '../../core/money';
import { jest } from '@jest/globals';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as postLegacy } from '../../functions/chat/legacy-post';
import { handler as conversationMessages } from '../../functions/conversations/messages';
import { handler as usageCurrent } from '../../functions/usage/current';
import { handler as updateUser } from '../../functions/admin/update-user';
import { monthOf, readSpend } from '../../tables/budgets';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { dedicatedResource, managedResource, newConversation, withModelFault } from './chat-fixtures';

jest.setTimeout(60_000);

let resource: Resource;
let superAdmin: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  // A model of this file's own: the model fault below must not touch other files' turns (one emulator serves all).
  [resource, superAdmin] = await Promise.all([managedResource('mistral.mistral-7b-instruct-v0:2'), makeUser('super_admin')]);
});

const turn = (token: string, conversationId: string, message = 'Hello there') =>
  call(postThread as Handler, { method: 'POST', token, body: { message, conversationId, resourceId: resource.id } });
const setBudget = (userId: string, monthly_budget_usd: number | null) =>
  call(updateUser as Handler, { method: 'PATCH', token: superAdmin.token, pathParameters: { userId }, body: { monthly_budget_usd } });
const spendOf = async (userId: string) => {
  const { spent, reserved } = (await readSpend([{ kind: 'user', id: userId }], monthOf(new Date())))({ kind: 'user', id: userId });
  return { spent_usd: usdOf(spent), reserved_usd: usdOf(reserved) };
};
const usageCost = async (token: string) => (await call(usageCurrent as Handler, { token })).body.mtd;

async function chatter() {
  const person = await makeUser('user');
  return { ...person, conversationId: await newConversation(person.token, resource) };
}

test('a turn the budget cannot cover is 429 in the thread shape before the model is asked: nothing stored, nothing counted', async () => {
  const p = await chatter();
  expect((await setBudget(p.user.id, 0.000001)).status).toBe(200);
  const refused = await turn(p.token, p.conversationId);
  expect(refused.status).toBe(429);
  expect(refused.body).toEqual({
    success: false,
    error: expect.stringMatching(/^Your monthly user budget cannot cover this message \(up to \$/),
    threadId: '',
    messages: [],
  });
  const legacy = await call(postLegacy as Handler, {
    method: 'POST',
    token: p.token,
    body: { message: 'Hi', conversationId: p.conversationId, resourceId: resource.id },
  });
  expect(legacy.status).toBe(429);
  expect(legacy.body).toEqual({ success: false, error: expect.stringMatching(/^Your monthly user budget cannot cover this message/) });
  const listed = await call(conversationMessages as Handler, { token: p.token, pathParameters: { id: p.conversationId } });
  expect(listed.body.count).toBe(0);
  expect((await usageCost(p.token)).requests).toBe(0);
  expect(await spendOf(p.user.id)).toEqual({ spent_usd: 0, reserved_usd: 0 });
});

test("answered turns spend the budget: the recorded spend equals the user's usage cost, nothing stays reserved", async () => {
  const p = await chatter();
  await setBudget(p.user.id, 1);
  for (const message of ['one', 'two', 'three']) expect((await turn(p.token, p.conversationId, message)).status).toBe(200);
  const usage = await usageCost(p.token);
  expect(usage.requests).toBe(3);
  expect(usage.cost_usd).toBeGreaterThan(0);
  expect(await spendOf(p.user.id)).toEqual({ spent_usd: usage.cost_usd, reserved_usd: 0 });
});

test("a budget set mid-month starts from the month's session chat so far, and refuses once that spend reaches it", async () => {
  const p = await chatter();
  for (const message of ['before', 'the budget']) expect((await turn(p.token, p.conversationId, message)).status).toBe(200);
  expect(await spendOf(p.user.id)).toEqual({ spent_usd: 0, reserved_usd: 0 }); // no budget, no spend item written
  const { cost_usd } = await usageCost(p.token);
  await setBudget(p.user.id, cost_usd);
  expect((await spendOf(p.user.id)).spent_usd).toBe(cost_usd);
  expect((await turn(p.token, p.conversationId)).status).toBe(429);
  await setBudget(p.user.id, cost_usd + 1);
  expect((await turn(p.token, p.conversationId)).status).toBe(200);
  expect((await spendOf(p.user.id)).spent_usd).toBe((await usageCost(p.token)).cost_usd);
});

test('a failed model call gives its reservation back and spends nothing', async () => {
  const p = await chatter();
  await setBudget(p.user.id, 1);
  const failed = await withModelFault(resource, () => turn(p.token, p.conversationId));
  expect(failed.status).toBe(500);
  expect(await spendOf(p.user.id)).toEqual({ spent_usd: 0, reserved_usd: 0 });
});

test('a dedicated endpoint bills by the hour, so its turns pass a spent budget and charge nothing', async () => {
  const p = await makeUser('user');
  const dedicated = await dedicatedResource();
  const conversationId = await newConversation(p.token, dedicated);
  await setBudget(p.user.id, 0);
  const res = await call(postThread as Handler, {
    method: 'POST',
    token: p.token,
    body: { message: 'Hi', conversationId, resourceId: dedicated.id },
  });
  expect(res.status).toBe(200);
  expect(await spendOf(p.user.id)).toEqual({ spent_usd: 0, reserved_usd: 0 });
});
