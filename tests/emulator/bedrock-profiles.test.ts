import {
  BedrockClient,
  CreateInferenceProfileCommand,
  DeleteInferenceProfileCommand,
  GetInferenceProfileCommand,
  ListInferenceProfilesCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
} from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, rejection } from './helpers';

let emulator: RunningEmulator;
let bedrock: BedrockClient;
let runtime: BedrockRuntimeClient;

const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const US_REGIONS = ['us-east-1', 'us-east-2', 'us-west-2'];

const converse = (modelId: string) => runtime.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  bedrock = new BedrockClient(clientConfig(emulator.url));
  runtime = new BedrockRuntimeClient(clientConfig(emulator.url));
});

afterAll(async () => {
  bedrock.destroy();
  runtime.destroy();
  await emulator.close();
});

describe('system-defined inference profiles', () => {
  it('lists only the geographic profiles of the source Region and the global ones', async () => {
    const out = await bedrock.send(new ListInferenceProfilesCommand({ typeEquals: 'SYSTEM_DEFINED' }));
    const ids = (out.inferenceProfileSummaries ?? []).map((p) => p.inferenceProfileId);
    expect(ids).toContain(`us.${SONNET}`);
    expect(ids).toContain(`global.${SONNET}`);
    expect(ids.some((id) => id?.startsWith('eu.') || id?.startsWith('apac.'))).toBe(false);
  });

  it('describes a geographic profile with one foundation-model ARN per destination Region', async () => {
    const profile = await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: `us.${SONNET}` }));
    expect(profile).toMatchObject({
      inferenceProfileId: `us.${SONNET}`,
      inferenceProfileArn: expect.stringMatching(
        new RegExp(`^arn:aws:bedrock:us-east-1:\\d{12}:inference-profile/us\\.${SONNET.replace(/\./g, '\\.')}$`),
      ),
      type: 'SYSTEM_DEFINED',
      status: 'ACTIVE',
    });
    expect(profile.models?.map((m) => m.modelArn)).toEqual(US_REGIONS.map((r) => `arn:aws:bedrock:${r}::foundation-model/${SONNET}`));
  });

  it('refuses the base id of a profile-only model with the service’s own words', async () => {
    const err = await rejection(converse(SONNET));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(
      `Invocation of model ID ${SONNET} with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model.`,
    );
  });

  it('answers through a geographic profile id, a global profile id and a profile ARN', async () => {
    const { inferenceProfileArn } = await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: `global.${SONNET}` }));
    for (const id of [`us.${SONNET}`, `global.${SONNET}`, inferenceProfileArn as string]) {
      expect((await converse(id)).output?.message?.role).toBe('assistant');
    }
    const { body } = await control(emulator.url, 'GET', '/state');
    expect(body.runtimeTargets).toMatchObject({ [`us.${SONNET}`]: 1, [`global.${SONNET}`]: 1 });
  });

  it('refuses a profile of a geography the source Region is not in', async () => {
    const err = await rejection(converse(`eu.${SONNET}`));
    expect([err.name, err.message]).toEqual(['ValidationException', 'The provided model identifier is invalid.']);
  });
});

describe('application inference profiles', () => {
  it('are created from a system profile with tags, invoked by ARN, tagged again and deleted', async () => {
    const system = await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: `us.${SONNET}` }));
    const created = await bedrock.send(
      new CreateInferenceProfileCommand({
        inferenceProfileName: 'team-search',
        modelSource: { copyFrom: system.inferenceProfileArn as string },
        tags: [{ key: 'team', value: 'search' }],
      }),
    );
    const arn = created.inferenceProfileArn as string;
    expect(arn).toMatch(/^arn:aws:bedrock:us-east-1:\d{12}:application-inference-profile\/[a-z0-9]{12}$/);
    const got = await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: arn }));
    expect(got.type).toBe('APPLICATION');
    expect(got.models?.map((m) => m.modelArn)).toEqual(system.models?.map((m) => m.modelArn));

    expect((await converse(arn)).output?.message?.role).toBe('assistant');

    await bedrock.send(new TagResourceCommand({ resourceARN: arn, tags: [{ key: 'cost-centre', value: '42' }] }));
    const { tags } = await bedrock.send(new ListTagsForResourceCommand({ resourceARN: arn }));
    expect(tags).toEqual([
      { key: 'team', value: 'search' },
      { key: 'cost-centre', value: '42' },
    ]);

    const listed = await bedrock.send(new ListInferenceProfilesCommand({ typeEquals: 'APPLICATION' }));
    expect(listed.inferenceProfileSummaries?.map((p) => p.inferenceProfileArn)).toEqual([arn]);

    await bedrock.send(new DeleteInferenceProfileCommand({ inferenceProfileIdentifier: arn }));
    const gone = await rejection(bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: arn })));
    expect(gone.name).toBe('ResourceNotFoundException');
  });

  it('copies one foundation model offered on demand, and refuses a second profile of the same name', async () => {
    const nova = 'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0';
    const { inferenceProfileArn } = await bedrock.send(
      new CreateInferenceProfileCommand({ inferenceProfileName: 'nova-app', modelSource: { copyFrom: nova } }),
    );
    const got = await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: inferenceProfileArn }));
    expect(got.models).toEqual([{ modelArn: nova }]);
    const again = await rejection(
      bedrock.send(new CreateInferenceProfileCommand({ inferenceProfileName: 'nova-app', modelSource: { copyFrom: nova } })),
    );
    expect(again.name).toBe('ConflictException');
  });

  it('refuses to delete a system-defined profile', async () => {
    const err = await rejection(bedrock.send(new DeleteInferenceProfileCommand({ inferenceProfileIdentifier: `us.${SONNET}` })));
    expect(err.name).toBe('ValidationException');
  });
});
