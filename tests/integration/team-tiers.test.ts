import { jest } from '@jest/globals';
import { handler as createKey } from '../../functions/keys/create';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as createTeam } from '../../functions/teams/create';
import { handler as updateTeam } from '../../functions/teams/update';
import { handler as addMember } from '../../functions/teams/add-member';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, managedResource } from './chat-fixtures';

jest.setTimeout(60_000);

/** A team limited to some of Bedrock's processing tiers: every call counted in the team is held to them. */

const OSS = 'openai.gpt-oss-120b-1:0'; // offers Standard, Flex and Priority
const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0'; // Standard only

let admin: string;
let teamId: string;
let memberKey: string;
let flexOnlyKey: string;
let oss: string;
let haiku: string;

const complete = (key: string, model: string, extra: Record<string, unknown> = {}) =>
  call(completions as Handler, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: { model, max_tokens: 20, messages: [{ role: 'user', content: 'Summarise the report' }], ...extra },
  });
const setTiers = (allowed_service_tiers: string[] | null) =>
  call(updateTeam as Handler, { method: 'PATCH', token: admin, pathParameters: { teamId }, body: { allowed_service_tiers } });

beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  const member = await makeUser('user');
  const [team, ossResource, haikuResource] = await Promise.all([
    call(createTeam as Handler, {
      method: 'POST',
      token: admin,
      body: { name: `batch-${Date.now().toString(36)}-${process.pid}`, allowed_service_tiers: ['flex', 'flex'] },
    }),
    listed(managedResource(OSS)),
    listed(managedResource(HAIKU)),
  ]);
  teamId = team.body.team.id;
  oss = ossResource.endpoint_name;
  haiku = haikuResource.endpoint_name;
  await call(addMember as Handler, { method: 'POST', token: admin, pathParameters: { teamId }, body: { user_id: member.user.id, role: 'member' } });
  const key = (body: Record<string, unknown>) => call(createKey as Handler, { method: 'POST', token: member.token, body: { name: 'k', ...body } });
  const [plain, flexOnly] = await Promise.all([key({}), key({ allowed_service_tiers: ['flex'] })]);
  memberKey = plain.body.key;
  flexOnlyKey = flexOnly.body.key;
});

describe("a team's allowed_service_tiers", () => {
  test('is stored and shown once, deduplicated', async () => {
    const res = await setTiers(['flex', 'flex']);
    expect(res.status).toBe(200);
    expect(res.body.team.allowed_service_tiers).toEqual(['flex']);
  });

  test('an unknown tier is a 400', async () => {
    expect((await setTiers(['turbo'])).status).toBe(400);
  });

  test("a member's call that names no tier runs on the team's tier, though the member's key has no limit", async () => {
    const res = await complete(memberKey, oss);
    expect(res.status).toBe(200);
    expect(res.body.service_tier).toBe('flex');
  });

  test('a tier the team does not allow is a 403 naming the team, in OpenAI’s shape', async () => {
    const res = await complete(memberKey, oss, { service_tier: 'priority' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'service_tier_not_allowed', param: 'service_tier' });
    expect(res.body.error.message).toContain('Team "');
  });

  test('a model without the team’s tier is refused with a 403 that says why', async () => {
    const res = await complete(memberKey, haiku);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('may use only flex');
  });

  test('the key’s and the team’s limits both hold: flex on both runs on flex', async () => {
    const res = await complete(flexOnlyKey, oss);
    expect(res.status).toBe(200);
    expect(res.body.service_tier).toBe('flex');
  });

  test('null removes the limit, and the member’s calls run on Standard again', async () => {
    expect((await setTiers(null)).body.team.allowed_service_tiers).toBeNull();
    const res = await complete(memberKey, oss, { service_tier: 'priority' });
    expect(res.status).toBe(200);
    expect(res.body.service_tier).toBe('priority');
    expect((await complete(memberKey, oss)).body.service_tier).toBe('default');
    await setTiers(['flex']);
  });
});
