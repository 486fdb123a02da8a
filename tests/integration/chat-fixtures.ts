/**
 * Fixtures shared by the chat, conversation and usage integration tests: tracked resources written
 * straight into the table (these tests are about chat, not deployment), dedicated endpoints created
 * on the emulator through the real SageMaker SDK, and emulator faults scoped to one model or
 * endpoint and cleared again by the test that set them (other files share the emulator).
 */
import { randomUUID } from 'node:crypto';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from '../../tables/client';
import { resourceKey, type Resource, type TrackedResource } from '../../tables/resources';
import { handler as createConversation } from '../../functions/conversations/create';
import { call, type Handler } from '../helpers/invoke';

export const MANAGED_MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
export const HOSTED_MODEL = 'meta/llama-3.1-8b-instruct';

const emulatorUrl = () => process.env.EMULATOR_URL as string;
const awsConfig = () => ({
  region: 'us-east-1',
  endpoint: emulatorUrl(),
  // The file's own access key id (tests/setup/table-env.ts): a direct call meets the file's faults.
  credentials: { accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID as string, secretAccessKey: 'test' },
  maxAttempts: 1,
});

/**
 * Writes a tracked resource (PK RES#<id>, SK META), InService and open to everyone unless told
 * otherwise (these tests are about chat; who may call a resource is tests/integration/resource-access.test.ts;
 * `access: null` writes one whose access was never set).
 */
export async function putResource(fields: Partial<TrackedResource> & Pick<Resource, 'type'>): Promise<Resource> {
  const now = new Date().toISOString();
  const id = fields.id ?? randomUUID();
  const resource: Resource = {
    id,
    name: `chat-test-${id.slice(0, 8)}`,
    status: 'InService',
    health: 'healthy',
    endpoint_url: 'https://example.invalid/',
    region: 'us-east-1',
    instance_type: null,
    instance_count: null,
    model_name: fields.model_id ?? 'model',
    model_id: '',
    endpoint_name: `chat-test-${id.slice(0, 8)}`,
    created_by: randomUUID(),
    created_at: now,
    last_updated: now,
    access: { everyone: true, user_ids: [], team_ids: [] },
    inference_image: null,
    capabilities: null,
    inference_profile: null,
    ...fields,
  };
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...resourceKey(id), entity: 'resource', ...resource } }));
  return resource;
}

export const managedResource = (modelId = MANAGED_MODEL) => putResource({ type: 'managed', model_id: modelId, model_name: modelId });

/** A managed resource of a profile-only model, called and priced through its US geographic profile (`us.<modelId>`). */
export const usProfileResource = (modelId: string, modelName: string) => {
  const profile = `us.${modelId}`;
  return putResource({
    type: 'managed',
    model_id: modelId,
    model_name: modelName,
    inference_profile: {
      id: profile,
      arn: `arn:aws:bedrock:us-east-1:123456789012:inference-profile/${profile}`,
      type: 'SYSTEM_DEFINED',
      regions: ['us-east-1', 'us-east-2', 'us-west-2'],
      priced_as: profile,
    },
  });
};
export const hostedResource = (modelId = HOSTED_MODEL) => putResource({ type: 'hosted', model_id: modelId, model_name: modelId });

/**
 * Creates an endpoint on the emulator (lifecycle delay 0) and tracks it as a dedicated resource. It
 * is InService, or, with `failCreate`, Failed (a 'fail' fault scoped to this endpoint's creation).
 */
export async function dedicatedResource(
  fields: Partial<TrackedResource> = {},
  options: { failCreate?: boolean; image?: string } = {},
): Promise<Resource> {
  const name = `chat-ep-${randomUUID().slice(0, 12)}`;
  const sm = new SageMakerClient(awsConfig());
  try {
    await sm.send(
      new CreateModelCommand({
        ModelName: `${name}-model`,
        ExecutionRoleArn: 'arn:aws:iam::123456789012:role/model-ops-test-sagemaker',
        PrimaryContainer: {
          Image: options.image ?? '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:latest',
          ModelDataUrl: 's3://bucket/model.tar.gz',
        },
      }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: `${name}-config`,
        ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: `${name}-model`, InitialInstanceCount: 1, InstanceType: 'ml.g5.xlarge' }],
      }),
    );
    if (options.failCreate) await emulator('POST', '/faults', { target: 'CreateEndpoint', model: name, fault: 'fail', count: 1 });
    await sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: `${name}-config` }));
    for (let i = 0; i < 100; i++) {
      const out = await sm.send(new DescribeEndpointCommand({ EndpointName: name }));
      if (out.EndpointStatus === 'InService' || out.EndpointStatus === 'Failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    sm.destroy();
  }
  return putResource({
    type: 'dedicated',
    endpoint_name: name,
    name,
    model_id: `${name}-model`,
    model_name: 'huggingface-llm',
    instance_type: 'ml.g5.xlarge',
    instance_count: 1,
    ...fields,
  });
}

export const deployedResourceBody = (resource?: Resource) => ({
  resource_name: resource?.name ?? 'my-endpoint',
  resource_type: resource?.type ?? 'managed',
  cloud_resource_id: resource?.id ?? 'arn:aws:bedrock:us-east-1::foundation-model/x',
  region: 'us-east-1',
  estimated_hourly_cost: 0,
});

export async function newConversation(token: string, resource?: Resource, title = 'A conversation'): Promise<string> {
  const res = await call(createConversation as Handler, {
    method: 'POST',
    token,
    body: { title, use_case: 'testing', deployed_resource: deployedResourceBody(resource) },
  });
  if (res.status !== 200) throw new Error(`conversation not created: ${res.raw}`);
  return res.body.conversation_id as string;
}

// ------------------------------------------------------------------------------------- faults

async function emulator(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emulatorUrl()}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
}

/** One direct call that a fault on this resource's model matches (used to use up a fault). */
async function pokeModel(resource: Resource): Promise<void> {
  if (resource.type === 'managed') {
    const client = new BedrockRuntimeClient(awsConfig());
    await client
      .send(new ConverseCommand({ modelId: resource.model_id, messages: [{ role: 'user', content: [{ text: 'drain' }] }] }))
      .catch(() => undefined)
      .finally(() => client.destroy());
  } else if (resource.type === 'dedicated') {
    const client = new SageMakerRuntimeClient(awsConfig());
    await client
      .send(
        new InvokeEndpointCommand({
          EndpointName: resource.endpoint_name,
          ContentType: 'application/json',
          Body: JSON.stringify({ messages: [{ role: 'user', content: 'drain' }] }),
        }),
      )
      .catch(() => undefined)
      .finally(() => client.destroy());
  } else {
    await fetch(`${emulatorUrl()}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.HOSTED_API_KEY}` },
      body: JSON.stringify({ model: resource.model_id, messages: [{ role: 'user', content: 'drain' }] }),
    }).catch(() => undefined);
  }
}

const OPERATION = { managed: 'Converse', dedicated: 'InvokeEndpoint', hosted: 'chat.completions' } as const;

/**
 * Runs `fn` while the resource's model call answers 500. The fault matches only this model or
 * endpoint, calls signed with this file's access key id (files calling the same model side by side
 * never meet it; the hosted API has no signature, so it is scoped by model alone) and a bounded number
 * of calls; whatever is left of it afterwards is used up by direct calls, so no later test meets it.
 * (DELETE /_emulator/faults would clear other files' faults too.)
 */
export async function withModelFault<T>(resource: Resource, fn: () => Promise<T>): Promise<T> {
  const key = resource.type === 'dedicated' ? resource.endpoint_name : resource.model_id;
  const caller = resource.type === 'hosted' ? undefined : process.env.SERVICE_CLOUD_ACCESS_KEY_ID;
  const { id } = await emulator('POST', '/faults', { target: OPERATION[resource.type], model: key, fault: '500', count: 20, caller });
  try {
    return await fn();
  } finally {
    for (let i = 0; i < 40; i++) {
      const { faults } = await emulator('GET', '/faults');
      if (!(faults as { id: string }[]).some((f) => f.id === id)) break;
      await pokeModel(resource);
    }
  }
}

/** A setup call that must succeed: fails the test with the answer's body if it did not. */
export async function ok<T extends { status: number; raw: string }>(response: Promise<T>): Promise<T> {
  const res = await response;
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.raw}`);
  return res;
}

/**
 * A resource the gateway can find: its listing index entry and its name guard (what the deploy writes
 * beside the resource, and the fixtures above do not), so a /v1 call resolves it by name.
 */
export async function listed(resource: Promise<Resource>): Promise<Resource> {
  const r = await resource;
  await Promise.all([
    db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: resourceKey(r.id),
        UpdateExpression: 'SET GSI1PK = :pk, GSI1SK = :sk',
        ExpressionAttributeValues: { ':pk': 'RESOURCES', ':sk': `${r.created_at}#${r.id}` },
      }),
    ),
    db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { PK: `RESNAME#${r.type}#${r.endpoint_name.toLowerCase()}`, SK: 'UNIQUE', resourceId: r.id, created_at: r.created_at },
      }),
    ),
  ]);
  return r;
}
