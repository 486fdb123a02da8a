/**
 * Each model's capabilities, recorded on the tracked resource by its deploy (through the handlers,
 * against DynamoDB Local and the shared emulator's catalogues), and derived for resources tracked
 * before they were recorded.
 */
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as deployDedicated } from '../../functions/deploy/dedicated';
import { handler as deployHosted } from '../../functions/deploy/hosted';
import { handler as deployManaged } from '../../functions/deploy/managed';
import { capabilitiesOf } from '../../lib/platforms/capabilities';
import type { ModelCapabilities } from '../../lib/platforms/types';
import { TABLE, db } from '../../tables/client';
import { getTrackedResource, resourceKey } from '../../tables/resources';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

jest.setTimeout(60_000);

const HUB = (name: string, version: string) => `arn:aws:sagemaker:us-east-1:aws:hub-content/SageMakerPublicHub/Model/${name}/${version}`;
const tag = () => randomUUID().slice(0, 8);

let admin: string;
beforeAll(async () => {
  admin = (await makeUser('admin')).token;
});

const NONE: ModelCapabilities = { chat: false, stream: false, tools: false, jsonOutput: false, imageInput: false, embeddings: false };
const CHAT = { ...NONE, chat: true, stream: true };
const FULL_CHAT = { ...CHAT, tools: true, jsonOutput: true };
const EMBEDDINGS = { ...NONE, embeddings: true };

async function deployed(handler: unknown, body: Record<string, unknown>) {
  const res = await call(handler as Handler, { method: 'POST', token: admin, body: { ...body, dryRun: false } });
  expect(res.status).toBe(200);
  const resource = await getTrackedResource(res.body.id as string);
  if (!resource) throw new Error('not tracked');
  return resource;
}

describe('capabilities recorded at deploy', () => {
  test.each([
    ['anthropic.claude-3-haiku-20240307-v1:0', { ...FULL_CHAT, imageInput: true }],
    ['amazon.nova-lite-v1:0', { ...FULL_CHAT, imageInput: true }],
    ['cohere.command-r-v1:0', { ...CHAT, tools: true }],
    ['meta.llama3-8b-instruct-v1:0', CHAT],
    ['amazon.titan-embed-text-v2:0', EMBEDDINGS],
    ['cohere.embed-multilingual-v3', EMBEDDINGS],
  ])('managed %s: modalities and streaming from Bedrock, tool use from its family', async (modelId, expected) => {
    const resource = await deployed(deployManaged, { modelId, endpointName: `cap-${tag()}` });
    expect(resource.capabilities).toEqual(expected);
  });

  test.each([
    ['meta/llama-3.1-8b-instruct', FULL_CHAT],
    ['meta/llama-3.2-11b-vision-instruct', { ...FULL_CHAT, imageInput: true }],
    ['baai/bge-m3', EMBEDDINGS],
  ])('hosted %s: from the model id', async (modelId, expected) => {
    const resource = await deployed(deployHosted, { modelId, endpointName: `cap-${tag()}` });
    expect(resource.capabilities).toEqual(expected);
  });

  test.each([
    [
      'a TEI hub model embeds',
      { modelPackageArn: HUB('huggingface-sentencesimilarity-bge-large-en-v1-5', '2.0.0'), instanceType: 'ml.g5.xlarge' },
      EMBEDDINGS,
    ],
    [
      'a TGI model package chats with tools and JSON',
      { modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1' },
      FULL_CHAT,
    ],
    [
      'an LMI vision hub model reads images',
      { modelPackageArn: HUB('meta-vlm-llama-3-2-11b-vision-instruct', '1.1.0'), acceptEula: true },
      { ...FULL_CHAT, imageInput: true },
    ],
    [
      'a CSV classifier package cannot chat',
      { modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/fraud-detector-xgboost/3', instanceType: 'ml.m5.xlarge' },
      NONE,
    ],
    ['an unknown image chats and streams, as before capabilities', { inferenceImage: '111122223333.dkr.ecr.us-east-1.amazonaws.com/custom:1' }, CHAT],
  ])('dedicated: %s', async (_name, model, expected) => {
    const resource = await deployed(deployDedicated, { endpointName: `cap-${tag()}`, instanceType: 'ml.g5.12xlarge', ...model });
    expect(resource.capabilities).toEqual(expected);
    expect(capabilitiesOf(resource)).toEqual(expected);
  });
});

describe('capabilities of a resource tracked before they were recorded', () => {
  test('are derived from the resource, and an item without the attribute reads as null', async () => {
    const resource = await deployed(deployManaged, { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: `old-${tag()}` });
    await db.send(new UpdateCommand({ TableName: TABLE, Key: resourceKey(resource.id), UpdateExpression: 'REMOVE capabilities' }));
    const old = await getTrackedResource(resource.id);
    expect(old?.capabilities).toBeNull();
    expect(capabilitiesOf(old as NonNullable<typeof old>)).toEqual({ ...FULL_CHAT, imageInput: true });
  });

  test.each([
    [{ type: 'managed', model_id: 'amazon.titan-embed-text-v2:0' }, EMBEDDINGS],
    [{ type: 'managed', model_id: 'mistral.mistral-7b-instruct-v0:2' }, CHAT],
    [
      { type: 'managed', model_id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
      { ...FULL_CHAT, imageInput: true },
    ],
    [{ type: 'hosted', model_id: 'nvidia/nv-embedqa-e5-v5' }, EMBEDDINGS],
    [
      {
        type: 'dedicated',
        model_id: 'x',
        inference_image: '683313688378.dkr.ecr.us-east-1.amazonaws.com/tei-cpu:2.0.1-tei1.4.0-cpu-py310-ubuntu22.04',
      },
      EMBEDDINGS,
    ],
    [{ type: 'dedicated', model_id: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1', inference_image: null }, CHAT],
  ] as const)('%j derives %j', (resource, expected) => {
    expect(capabilitiesOf(resource)).toEqual(expected);
  });

  test('recorded capabilities win over the derived ones', () => {
    expect(capabilitiesOf({ type: 'hosted', model_id: 'meta/llama-3.1-8b-instruct', capabilities: NONE })).toEqual(NONE);
  });
});
