import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { handler as control } from '../../functions/resources/control';
import { handler as postThread } from '../../functions/chat/thread-post';
import { handler as createTeam } from '../../functions/teams/create';
import { handler as addMember } from '../../functions/teams/add-member';
import { getTrackedResource } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { newConversation } from './chat-fixtures';

// Integration calls go through DynamoDB Local and the emulator; a loaded machine needs headroom.
jest.setTimeout(60_000);

/** Managed deploys through Bedrock inference profiles: system (geographic, global) and application. */

const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'amazon.nova-lite-v1:0';
const HAIKU_3 = 'anthropic.claude-3-haiku-20240307-v1:0';
const US_REGIONS = ['us-east-1', 'us-east-2', 'us-west-2'];
const tag = () => randomUUID().slice(0, 8);

let admin: string;
/** An admin in one team (billed by default), and that team's id and name; a second team the first admin is not in. */
let teamed: { token: string; teamId: string; teamName: string };
let otherTeam: string;
beforeAll(async () => {
  admin = (await makeUser('admin')).token;
  const member = await makeUser('admin');
  const newTeam = async (name: string) =>
    (await call(createTeam as Handler, { method: 'POST', token: admin, body: { name } })).body.team as { id: string; name: string };
  const [team, other] = await Promise.all([newTeam(`search-${tag()}`), newTeam(`ads-${tag()}`)]);
  await call(addMember as Handler, {
    method: 'POST',
    token: admin,
    pathParameters: { teamId: team.id },
    body: { user_id: member.user.id, role: 'member' },
  });
  teamed = { token: member.token, teamId: team.id, teamName: team.name };
  otherTeam = other.id;
});

const deploy = (body: Record<string, unknown>) => call(deployManaged as Handler, { method: 'POST', token: admin, body });
const remove = (id: string) =>
  call(control as Handler, { method: 'POST', token: admin, pathParameters: { resourceId: id }, body: { action: 'delete', confirm: true } });
const chat = (resourceId: string, conversationId: string) =>
  call(postThread as Handler, {
    method: 'POST',
    path: '/api/chat/thread',
    token: admin,
    body: { message: 'Hello there.', conversationId, resourceId },
  });

async function emulatorState() {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator/state`);
  const state = (await res.json()) as {
    runtimeTargetsByCaller: Record<string, Record<string, number>>;
    inferenceProfiles: { arn: string; tags: Record<string, string> }[];
  };
  // This file's calls only (its own access key id, tests/setup/table-env.ts): files run side by side.
  return { ...state, runtimeTargets: state.runtimeTargetsByCaller[process.env.SERVICE_CLOUD_ACCESS_KEY_ID as string] ?? {} };
}

/** Deploys for real, has one chat turn on the resource and answers how often the emulator was called by `runtimeId` before and after. */
async function deployAndChat(body: Record<string, unknown>, runtimeId: (deployed: any) => string) {
  const res = await deploy({ ...body, endpointName: `p-${tag()}`, dryRun: false });
  expect(res.status).toBe(200);
  const id = runtimeId(res.body);
  const before = (await emulatorState()).runtimeTargets[id] ?? 0;
  const resource = await getTrackedResource(res.body.id);
  const conversationId = await newConversation(admin, resource ?? undefined);
  const turn = await chat(res.body.id, conversationId);
  expect(turn.status).toBe(200);
  expect((await emulatorState()).runtimeTargets[id]).toBe(before + 1);
  return res.body;
}

describe('POST /api/deploy/managed with inference profiles', () => {
  test('auto picks the geographic profile of the service’s Region for a profile-only model, priced at its geographic price', async () => {
    const res = await deploy({ modelId: SONNET, endpointName: `p-${tag()}` });
    expect(res.status).toBe(200);
    expect(res.body.plan.inferenceProfile).toEqual({
      id: `us.${SONNET}`,
      arn: expect.stringMatching(/^arn:aws:bedrock:us-east-1:\d{12}:inference-profile\/us\./),
      type: 'SYSTEM_DEFINED',
      regions: US_REGIONS,
    });
    expect(res.body.plan.pricing).toMatchObject({ per_1k_input_tokens_usd: 0.0033, per_1k_output_tokens_usd: 0.0165 });
  });

  test('a global profile is priced at the global price', async () => {
    const res = await deploy({ modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: `global.${SONNET}` });
    expect(res.status).toBe(200);
    expect(res.body.plan.inferenceProfile).toMatchObject({ id: `global.${SONNET}`, type: 'SYSTEM_DEFINED' });
    expect(res.body.plan.pricing).toMatchObject({ per_1k_input_tokens_usd: 0.003, per_1k_output_tokens_usd: 0.015 });
  });

  test('a deploy through the geographic profile records it and every chat call reaches Bedrock by the profile id', async () => {
    const body = await deployAndChat({ modelId: SONNET }, () => `us.${SONNET}`);
    expect(body.inferenceProfile).toMatchObject({ id: `us.${SONNET}`, type: 'SYSTEM_DEFINED', regions: US_REGIONS });
    expect((await getTrackedResource(body.id))?.inference_profile).toMatchObject({ id: `us.${SONNET}`, priced_as: `us.${SONNET}` });
  });

  test('a deploy through the global profile: the chat call reaches Bedrock by the global profile id', async () => {
    const body = await deployAndChat({ modelId: SONNET, inferenceProfile: `global.${SONNET}` }, () => `global.${SONNET}`);
    expect(body.inferenceProfile.id).toBe(`global.${SONNET}`);
  });

  test('an application profile is created with the service’s and the caller’s tags, called by its ARN, and deleted with the resource', async () => {
    const plan = await deploy({ modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: 'application', tags: { team: 'search' } });
    expect(plan.body.plan.inferenceProfile).toMatchObject({
      id: null,
      arn: null,
      type: 'APPLICATION',
      regions: US_REGIONS,
      tags: { team: 'search' },
    });

    const body = await deployAndChat({ modelId: SONNET, inferenceProfile: 'application', tags: { team: 'search' } }, (d) => d.inferenceProfile.arn);
    const arn = body.inferenceProfile.arn as string;
    expect(body.inferenceProfile).toMatchObject({ type: 'APPLICATION', regions: US_REGIONS });
    const created = (await emulatorState()).inferenceProfiles.find((p) => p.arn === arn);
    expect(created?.tags).toMatchObject({ team: 'search', 'managed-by': 'model-ops', 'model-ops:resource-id': body.id });

    const deleted = await remove(body.id);
    expect(deleted.status).toBe(200);
    expect((await emulatorState()).inferenceProfiles.some((p) => p.arn === arn)).toBe(false);
    expect(await getTrackedResource(body.id)).toBeUndefined();
  });

  test("an application profile carries the deploying user's team as its cost allocation tag, the service's tags winning over the caller's", async () => {
    const res = await call(deployManaged as Handler, {
      method: 'POST',
      token: teamed.token,
      body: { modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: 'application', tags: { 'model-ops:team': 'forged' }, dryRun: false },
    });
    expect(res.status).toBe(200);
    const created = (await emulatorState()).inferenceProfiles.find((p) => p.arn === res.body.inferenceProfile.arn);
    expect(created?.tags).toMatchObject({
      'model-ops:team': teamed.teamName,
      'model-ops:team-id': teamed.teamId,
      'model-ops:resource-id': res.body.id,
    });
    expect((await remove(res.body.id)).status).toBe(200);
  });

  test('a team named in the request bills that team when the caller belongs to it; another team is 400 and nothing is created', async () => {
    const named = await call(deployManaged as Handler, {
      method: 'POST',
      token: teamed.token,
      body: { modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: 'application', team_id: teamed.teamId },
    });
    expect(named.body.plan.inferenceProfile.tags).toMatchObject({ 'model-ops:team': teamed.teamName });
    const before = (await emulatorState()).inferenceProfiles.length;
    const foreign = await call(deployManaged as Handler, {
      method: 'POST',
      token: teamed.token,
      body: { modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: 'application', team_id: otherTeam, dryRun: false },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toContain('not a member');
    expect((await emulatorState()).inferenceProfiles.length).toBe(before);
  });

  test('team_id without an application profile is 400', async () => {
    const res = await deploy({ modelId: SONNET, endpointName: `p-${tag()}`, team_id: otherTeam });
    expect(res.status).toBe(400);
  });

  test('a model offered both ways is called on demand by auto, and through its profile when asked', async () => {
    const auto = await deploy({ modelId: NOVA, endpointName: `p-${tag()}` });
    expect(auto.body.plan.inferenceProfile).toBeNull();
    const profiled = await deploy({ modelId: NOVA, endpointName: `p-${tag()}`, inferenceProfile: `us.${NOVA}` });
    expect(profiled.body.plan.inferenceProfile).toMatchObject({ id: `us.${NOVA}`, type: 'SYSTEM_DEFINED' });
  });

  test('"none" for a profile-only model is 400 naming the profiles it offers, and nothing is tracked', async () => {
    const res = await deploy({ modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: 'none', dryRun: false });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`us.${SONNET}`);
  });

  test('a profile of another model or geography is 400', async () => {
    const res = await deploy({ modelId: SONNET, endpointName: `p-${tag()}`, inferenceProfile: `eu.${SONNET}` });
    expect(res.status).toBe(400);
  });

  test('tags without an application profile are 400', async () => {
    const res = await deploy({ modelId: SONNET, endpointName: `p-${tag()}`, tags: { team: 'x' } });
    expect(res.status).toBe(400);
  });

  test('the plan warns about a LEGACY model, with the end-of-life date Bedrock gives', async () => {
    const res = await deploy({ modelId: HAIKU_3, endpointName: `p-${tag()}` });
    expect(res.body.plan.warnings).toContainEqual(expect.stringMatching(/LEGACY on Bedrock; Bedrock ends it on 2026-09-10/));
  });
});
