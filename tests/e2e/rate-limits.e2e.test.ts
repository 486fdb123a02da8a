/**
 * Rate limits as OpenAI clients see them (issue 25 item 3): the official `openai` package against
 * serverless-offline over HTTP. A team's rpm_limit shared by a member's team key: the SDK reads
 * OpenAI's x-ratelimit-* headers on every answer, and the call past the limit is its RateLimitError
 * with code rate_limit_exceeded and a Retry-After it can honour.
 */
import OpenAI from 'openai';
import { BASE, http, loginAsAdmin } from './http';

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const suffix = Math.random().toString(36).slice(2, 8);
const endpointName = `rl-${suffix}`;

/** Calendar-minute windows: start counting at least 15 s before a minute ends (set-up, not an assertion). */
async function inOneMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}

test("a team key's calls: the SDK sees x-ratelimit headers counting down, then a RateLimitError (rate_limit_exceeded, Retry-After)", async () => {
  const admin = await loginAsAdmin();
  expect((await http('POST', '/api/deploy/managed', { token: admin, body: { modelId: MODEL, endpointName, dryRun: false } })).status).toBe(200);
  const team = await http('POST', '/api/teams', { token: admin, body: { name: `rl-${suffix}`, rpm_limit: 2, tpm_limit: 100_000 } });
  expect(team.status).toBe(201);
  // A member of its own: the shared admin in a team of 2 requests a minute would hold every other
  // e2e file's calls with the admin's keys to that limit (a personal key's calls count in each of
  // its owner's teams).
  const username = `rl-member-${suffix}`;
  const created = await http('POST', '/api/admin/users', {
    token: admin,
    body: { username, email: `${username}@example.com`, name: 'Rate-limited member', role: 'user', password: 'e2e-password-1' },
  });
  expect(created.status).toBe(201);
  const member = (await http('POST', '/api/auth/login', { body: { username, password: 'e2e-password-1' } })).body.token as string;
  expect(
    (await http('POST', `/api/teams/${team.body.team.id}/members`, { token: admin, body: { user_id: created.body.user.id, role: 'member' } })).status,
  ).toBe(201);
  const key = await http('POST', '/api/keys', { token: member, body: { name: `rl-${suffix}`, team_id: team.body.team.id } });
  expect(key.status).toBe(201);
  const client = new OpenAI({ baseURL: `${BASE()}/v1`, apiKey: key.body.key as string, maxRetries: 0, timeout: 30_000 });
  const ask = () =>
    client.chat.completions.create({ model: endpointName, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 50 }).withResponse();

  await inOneMinute();
  for (const remaining of ['1', '0']) {
    const { response } = await ask();
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe(remaining);
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+(\.\d+)?s|\d+ms)$/);
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
  }
  const err = await ask().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  const limited = err as InstanceType<typeof OpenAI.RateLimitError>;
  expect(limited.code).toBe('rate_limit_exceeded');
  expect(limited.type).toBe('requests');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');
}, 120_000);
