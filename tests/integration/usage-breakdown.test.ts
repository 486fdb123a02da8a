import { jest } from '@jest/globals';
import { nanosOf, usdText, type Nanos } from '../../core/money';
import { handler as breakdownFn } from '../../functions/usage/breakdown';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as addMemberFn } from '../../functions/teams/add-member';
import { DEFAULT_TOKEN_PRICES } from '../../lib/pricing/defaults';
import { tokenCost } from '../../lib/pricing/service';
import type { Resource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { MANAGED_MODEL, hostedResource, listed, managedResource, newConversation, ok } from './chat-fixtures';
import { completeOn, createTeam, joinTeam, keyOf, type Caller } from './levels-fixtures';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a call can take seconds.
jest.setTimeout(60_000);

const breakdown = (token: string, query: Record<string, string>) => call(breakdownFn as Handler, { token, query });

interface Row {
  group: { id: string; name: string | null };
  cost_usd: string;
  tokens_in: number;
  tokens_out: number;
  cached_tokens: number;
  requests: number;
  by_day: { date: string; cost_usd: string; requests: number }[];
}

/** What the calls of the file recorded, per group, from their cost headers and usage: the figures a breakdown must give back. */
class Expected {
  private readonly sums = new Map<string, { cost: Nanos; requests: number; tokensIn: number; tokensOut: number }>();

  add(group: string, cost: Nanos, tokensIn: number, tokensOut: number): void {
    const s = this.sums.get(group) ?? { cost: 0, requests: 0, tokensIn: 0, tokensOut: 0 };
    this.sums.set(group, { cost: s.cost + cost, requests: s.requests + 1, tokensIn: s.tokensIn + tokensIn, tokensOut: s.tokensOut + tokensOut });
  }

  rows(names: Record<string, string | null>): Omit<Row, 'by_day' | 'cached_tokens'>[] {
    return [...this.sums]
      .sort(([a, x], [b, y]) => y.cost - x.cost || (a < b ? -1 : 1))
      .map(([id, s]) => ({
        group: { id, name: names[id] ?? null },
        cost_usd: usdText(s.cost),
        tokens_in: s.tokensIn,
        tokens_out: s.tokensOut,
        requests: s.requests,
      }));
  }
}

let admin: Caller;
let owner: Caller;
let one: Caller;
let two: Caller;
let outsider: Caller;
let team: { id: string; name: string };
let managed: Resource;
let hosted: Resource;
const keys: Record<string, { secret: string; id: string }> = {};
// The outsider's is a name a spreadsheet would run as a formula, with a comma and quotes: the CSV must keep it text.
const KEY_NAMES: Record<string, string> = { oneA: 'one-a', oneB: 'one-b', two: 'two', outsider: '=HYPERLINK("http://x.example","y"),z' };
const byKey = new Expected();
const byUser = new Expected();
const byModel = new Expected();
const byTeam = new Expected();
let total: Nanos = 0;
let today: string;

beforeAll(async () => {
  [admin, owner, one, two, outsider] = await Promise.all([makeUser('admin'), makeUser('user'), makeUser('user'), makeUser('user'), makeUser('user')]);
  team = await createTeam(admin, 'breakdown');
  const joined = await call(addMemberFn as Handler, {
    method: 'POST',
    token: admin.token,
    pathParameters: { teamId: team.id },
    body: { user_id: owner.user.id, role: 'owner' },
  });
  expect(joined.status).toBe(201);
  await joinTeam(admin, team.id, one);
  await joinTeam(admin, team.id, two);
  [managed, hosted] = await Promise.all([listed(managedResource()), listed(hostedResource())]);
  [keys.oneA, keys.oneB, keys.two, keys.outsider] = await Promise.all([
    keyOf(one, { name: KEY_NAMES.oneA }),
    keyOf(one, { name: KEY_NAMES.oneB }),
    keyOf(two, { name: KEY_NAMES.two }),
    keyOf(outsider, { name: KEY_NAMES.outsider }),
  ]);

  // Two users' /v1 calls with two keys each on two models, and an outsider's; each call's cost is its header.
  const calls: [Caller, keyof typeof keys, Resource, boolean][] = [
    [one, 'oneA', managed, true],
    [one, 'oneA', managed, true],
    [one, 'oneB', hosted, true],
    [two, 'two', managed, true],
    [two, 'two', hosted, true],
    [outsider, 'outsider', hosted, false],
  ];
  for (const [user, key, resource, inTeam] of calls) {
    const res = await ok(completeOn(() => resource)(keys[key]!.secret));
    const cost = nanosOf(res.headers['x-model-ops-cost-usd'] as string);
    const { prompt_tokens: tin, completion_tokens: tout } = res.body.usage as { prompt_tokens: number; completion_tokens: number };
    byKey.add(keys[key]!.id, cost, tin, tout);
    byUser.add(user.user.id, cost, tin, tout);
    byModel.add(resource.model_id, cost, tin, tout);
    if (inTeam) byTeam.add(team.id, cost, tin, tout);
    total += cost;
  }
  // A session chat turn counts too (by user, model, resource and team; no key).
  const conversationId = await newConversation(one.token, managed);
  const turn = await ok(
    call(postThread as Handler, { method: 'POST', token: one.token, body: { message: 'hello', conversationId, resourceId: managed.id } }),
  );
  const reply = turn.body.messages[1] as { tokens_in: number; tokens_out: number };
  const turnCost = tokenCost(DEFAULT_TOKEN_PRICES.managed[MANAGED_MODEL]!, reply.tokens_in, reply.tokens_out);
  byUser.add(one.user.id, turnCost, reply.tokens_in, reply.tokens_out);
  byModel.add(MANAGED_MODEL, turnCost, reply.tokens_in, reply.tokens_out);
  byTeam.add(team.id, turnCost, reply.tokens_in, reply.tokens_out);
  total += turnCost;
  await drainStream();
  today = new Date().toISOString().slice(0, 10);
});

const keyName = (name: string, secret: string) => `${name} (${secret.slice(0, 11)}…)`;
const ids = (rows: Row[]) => rows.map((r) => r.group.id).sort();
const sum = (rows: Row[]) => rows.reduce((n, r) => n + nanosOf(r.cost_usd), 0);

describe('GET /api/usage/breakdown: the sums are the recorded spend', () => {
  test("by key: each key's cost (its calls' cost headers, exactly), tokens and requests, named by name and prefix", async () => {
    const res = await breakdown(admin.token, { groupBy: 'key' });
    expect(res.status).toBe(200);
    const names = Object.fromEntries(Object.entries(keys).map(([k, v]) => [v.id, keyName(KEY_NAMES[k]!, v.secret)]));
    expect(res.body).toMatchObject({ success: true, groupBy: 'key', from: `${today.slice(0, 7)}-01`, to: today });
    expect((res.body.rows as Row[]).map(({ by_day: _d, cached_tokens: _c, ...r }) => r)).toEqual(byKey.rows(names));
    for (const row of res.body.rows as Row[]) expect(row.by_day).toEqual([{ date: today, cost_usd: row.cost_usd, requests: row.requests }]);
  });

  test('by user (the chat turn included, named by e-mail), by model and by team: every grouping adds up to the same spend', async () => {
    const users = await breakdown(admin.token, { groupBy: 'user' });
    const emails = Object.fromEntries([one, two, outsider].map((u) => [u.user.id, u.user.email]));
    expect((users.body.rows as Row[]).map(({ by_day: _d, cached_tokens: _c, ...r }) => r)).toEqual(byUser.rows(emails));
    const models = await breakdown(admin.token, { groupBy: 'model' });
    expect((models.body.rows as Row[]).map(({ by_day: _d, cached_tokens: _c, ...r }) => r)).toEqual(
      byModel.rows(Object.fromEntries([managed, hosted].map((r) => [r.model_id, r.model_id]))),
    );
    const teams = await breakdown(admin.token, { groupBy: 'team' });
    expect((teams.body.rows as Row[]).map(({ by_day: _d, cached_tokens: _c, ...r }) => r)).toEqual(byTeam.rows({ [team.id]: team.name }));
    const resources = await breakdown(admin.token, { groupBy: 'resource' });
    expect(ids(resources.body.rows)).toEqual([managed.id, hosted.id].sort());
    expect((resources.body.rows as Row[]).map((r) => r.group.name).sort()).toEqual([managed.name, hosted.name].sort());
    for (const grouped of [users, models, resources]) expect(sum(grouped.body.rows)).toBe(total);
  });

  test('a range without calls has no rows; a range that ends today has them', async () => {
    const before = await breakdown(admin.token, { groupBy: 'model', from: '2025-01-01', to: '2025-01-31' });
    expect(before.body).toEqual({ success: true, from: '2025-01-01', to: '2025-01-31', groupBy: 'model', rows: [] });
    const around = await breakdown(admin.token, { groupBy: 'model', from: today, to: today });
    expect(sum(around.body.rows)).toBe(total);
  });
});

describe('whose rows a caller sees', () => {
  test('a user sees only their own calls: their keys, their models, themselves', async () => {
    const ownKeys = await breakdown(two.token, { groupBy: 'key' });
    expect(ids(ownKeys.body.rows)).toEqual([keys.two!.id]);
    const ownModels = await breakdown(two.token, { groupBy: 'model' });
    expect(ownModels.body.rows.map((r: Row) => r.requests).reduce((a: number, b: number) => a + b, 0)).toBe(2);
    const ownUser = await breakdown(one.token, { groupBy: 'user' });
    expect(ids(ownUser.body.rows)).toEqual([one.user.id]);
    expect(ownUser.body.rows[0].requests).toBe(4);
  });

  test("a team's owner sees the team whole by team, and its members and keys with teamId; a member may not (403), an outsider is told nothing (404)", async () => {
    const byTeamOwner = await breakdown(owner.token, { groupBy: 'team' });
    expect((byTeamOwner.body.rows as Row[]).map(({ by_day: _d, cached_tokens: _c, ...r }) => r)).toEqual(byTeam.rows({ [team.id]: team.name }));
    const members = await breakdown(owner.token, { groupBy: 'user', teamId: team.id });
    expect(members.status).toBe(200);
    expect(ids(members.body.rows)).toEqual([one.user.id, two.user.id].sort());
    const teamKeys = await breakdown(owner.token, { groupBy: 'key', teamId: team.id });
    expect(ids(teamKeys.body.rows)).toEqual([keys.oneA!.id, keys.oneB!.id, keys.two!.id].sort());
    // The owner's own calls (none) are all they see without teamId.
    expect((await breakdown(owner.token, { groupBy: 'user' })).body.rows).toEqual([]);
    expect((await breakdown(one.token, { groupBy: 'user', teamId: team.id })).status).toBe(403);
    expect((await breakdown(outsider.token, { groupBy: 'user', teamId: team.id })).status).toBe(404);
  });

  test('a member who owns no team sees, by team, only their own calls in it', async () => {
    const mine = await breakdown(two.token, { groupBy: 'team' });
    expect(ids(mine.body.rows)).toEqual([team.id]);
    expect(mine.body.rows[0].requests).toBe(2);
  });
});

describe('format=csv', () => {
  test('answers text/csv with a header row and a row per group, the figures of the JSON, formula cells kept text', async () => {
    const res = await breakdown(admin.token, { groupBy: 'key', format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['Content-Disposition']).toMatch(/^attachment; filename="usage-by-key-\d{4}-\d\d-01-to-\d{4}-\d\d-\d\d\.csv"$/);
    const lines = res.raw.split('\r\n');
    expect(lines[0]).toBe('group_id,group_name,cost_usd,tokens_in,tokens_out,cached_tokens,requests');
    expect(lines.at(-1)).toBe('');
    const json = (await breakdown(admin.token, { groupBy: 'key' })).body.rows as Row[];
    expect(lines).toHaveLength(json.length + 2);
    const first = json[0]!;
    expect(lines).toContain(
      [first.group.id, first.group.name, first.cost_usd, first.tokens_in, first.tokens_out, first.cached_tokens, first.requests].join(','),
    );
    // The outsider's key name starts with '=': prefixed with ', then quoted (it holds a comma and quotes) with its quotes doubled.
    const name = keyName(KEY_NAMES.outsider!, keys.outsider!.secret);
    expect(lines).toContainEqual(expect.stringContaining(`${keys.outsider!.id},"'${name.replaceAll('"', '""')}",`));
  });
});

describe('bad input is a 400 in the API error shape', () => {
  test.each([
    [{ groupBy: 'colour' }, /groupBy/],
    [{ from: '2026-02-30' }, /'from' is not a calendar day/],
    [{ from: '2026/01/01' }, /from/],
    [{ from: '2026-03-02', to: '2026-03-01' }, /'to' \(2026-03-01\) is before 'from' \(2026-03-02\)/],
    [{ from: '2025-01-01', to: '2026-01-02' }, /at most 366 days/],
    [{ format: 'xml' }, /format/],
    [{ teamId: 'not-a-uuid' }, /teamId/],
  ])('%j', async (query, message) => {
    const res = await breakdown(one.token, query);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(message);
  });

  test('a whole leap year (366 days) is accepted', async () => {
    expect((await breakdown(one.token, { from: '2024-01-01', to: '2024-12-31' })).status).toBe(200);
  });
});
