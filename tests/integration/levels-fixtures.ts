/** What the nested-budget and rate-limit tests share: teams and their members, a key of a user, and a call with it. */
import { handler as createKeyFn } from '../../functions/keys/create';
import { handler as createTeamFn } from '../../functions/teams/create';
import { handler as addMemberFn } from '../../functions/teams/add-member';
import { handler as completions } from '../../functions/gateway/completions';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import type { makeUser } from '../helpers/users';

export type Caller = Awaited<ReturnType<typeof makeUser>>;

let teamSeq = 0;

/** A new team created by `admin` (201 expected), named uniquely (`prefix`, the process, a sequence and the time). */
export async function createTeam(admin: Caller, prefix: string, body: Record<string, unknown> = {}) {
  const res = await call(createTeamFn as Handler, {
    method: 'POST',
    token: admin.token,
    body: { name: `${prefix}-${process.pid}-${teamSeq++}-${Date.now().toString(36)}`, ...body },
  });
  expect(res.status).toBe(201);
  return res.body.team as { id: string; name: string };
}

/** `user` added to the team by `admin` as a member (201 expected), with a budget in it if given. */
export async function joinTeam(admin: Caller, teamId: string, user: Caller, monthly_budget_usd?: number) {
  const res = await call(addMemberFn as Handler, {
    method: 'POST',
    token: admin.token,
    pathParameters: { teamId },
    body: { user_id: user.user.id, role: 'member', ...(monthly_budget_usd === undefined ? {} : { monthly_budget_usd }) },
  });
  expect(res.status).toBe(201);
}

/** A new API key of `user` (201 expected), with its secret and id. */
export async function keyOf(user: Caller, body: Record<string, unknown> = {}) {
  const res = await call(createKeyFn as Handler, { method: 'POST', token: user.token, body: { name: 'k', ...body } });
  expect(res.status).toBe(201);
  return { secret: res.body.key as string, id: res.body.id as string };
}

/** POST /v1/chat/completions of "Hello there" with max_tokens 100 on the resource. */
export const completeOn =
  (resource: () => Resource) =>
  (key: string, extra: Record<string, unknown> = {}) =>
    call(completions as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { model: resource().endpoint_name, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 100, ...extra },
    });

/**
 * Windows are calendar minutes: a test that counts one window's calls starts them at least 15 s before
 * the minute ends, so they all fall in it (a set-up wait, not a timing assertion).
 */
export async function inOneMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}
