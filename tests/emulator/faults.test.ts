import { BedrockClient, ListFoundationModelsCommand } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { CreateEndpointCommand, DescribeEndpointCommand, ListHubContentsCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { NodeHttp2Handler, NodeHttpHandler } from '@smithy/node-http-handler';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, createModelAndConfig, deployEndpoint, injectFault, rejection } from './helpers';

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const NOVA = 'amazon.nova-lite-v1:0';
const KEY = 'local-hosted-key';

let emulator: RunningEmulator;
let bedrock: BedrockClient;
let runtime: BedrockRuntimeClient;
let sm: SageMakerClient;

const converse = (client: BedrockRuntimeClient, modelId = HAIKU) =>
  client.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  bedrock = new BedrockClient(clientConfig(emulator.url));
  runtime = new BedrockRuntimeClient(clientConfig(emulator.url));
  sm = new SageMakerClient(clientConfig(emulator.url));
});

afterAll(async () => {
  bedrock.destroy();
  runtime.destroy();
  sm.destroy();
  await emulator.close();
});

beforeEach(async () => {
  await control(emulator.url, 'POST', '/reset');
});

describe('fault injection through the control API', () => {
  it('returns an id for a new fault and lists it', async () => {
    const created = await injectFault(emulator.url, { target: 'Converse', fault: '500' });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^fault-\d+$/);
    const listed = await control(emulator.url, 'GET', '/faults');
    expect(listed.body.faults).toEqual([expect.objectContaining({ id: created.body.id, target: 'Converse', fault: '500', remaining: null })]);
  });

  it('refuses a fault kind it does not know', async () => {
    const res = await injectFault(emulator.url, { target: 'Converse', fault: 'explode' });
    expect(res.status).toBe(400);
  });

  it('turns a 500 fault on Bedrock into InternalServerException', async () => {
    await injectFault(emulator.url, { target: 'Converse', fault: '500' });
    const err = await rejection(converse(runtime));
    expect(err.name).toBe('InternalServerException');
    expect(err.$metadata.httpStatusCode).toBe(500);
    expect(err.$fault).toBe('server');
  });

  it('turns a 429 fault on Bedrock into ThrottlingException', async () => {
    await injectFault(emulator.url, { target: 'Converse', fault: '429' });
    const err = await rejection(converse(runtime));
    expect(err.name).toBe('ThrottlingException');
    expect(err.message).toBe('Too many requests, please wait before trying again.');
    expect(err.$metadata.httpStatusCode).toBe(429);
  });

  it('turns a fail fault on Converse into ModelErrorException', async () => {
    await injectFault(emulator.url, { target: 'Converse', fault: 'fail' });
    const err = await rejection(converse(runtime));
    expect(err.name).toBe('ModelErrorException');
    expect(err.$metadata.httpStatusCode).toBe(424);
  });

  it('turns 500 and 429 faults on SageMaker into InternalFailure and ThrottlingException', async () => {
    await deployEndpoint(sm, 'faulty');
    await injectFault(emulator.url, { target: 'DescribeEndpoint', fault: '500', count: 1 });
    await injectFault(emulator.url, { target: 'DescribeEndpoint', fault: '429', count: 1 });
    const first = await rejection(sm.send(new DescribeEndpointCommand({ EndpointName: 'faulty' })));
    const second = await rejection(sm.send(new DescribeEndpointCommand({ EndpointName: 'faulty' })));
    expect([first.name, first.$metadata.httpStatusCode]).toEqual(['InternalFailure', 500]);
    expect([second.name, second.message]).toEqual(['ThrottlingException', 'Rate exceeded']);
    expect((await sm.send(new DescribeEndpointCommand({ EndpointName: 'faulty' }))).EndpointStatus).toBe('InService');
  });

  it('applies a fault to the matching model only', async () => {
    await injectFault(emulator.url, { target: 'Converse', model: NOVA, fault: '500' });
    await expect(converse(runtime, HAIKU)).resolves.toBeDefined();
    expect((await rejection(converse(runtime, NOVA))).name).toBe('InternalServerException');
  });

  it('applies a "*" fault to every operation', async () => {
    await injectFault(emulator.url, { target: '*', fault: '500' });
    expect((await rejection(bedrock.send(new ListFoundationModelsCommand({})))).name).toBe('InternalServerException');
    const hub = sm.send(new ListHubContentsCommand({ HubName: 'SageMakerPublicHub', HubContentType: 'Model' }));
    expect((await rejection(hub)).name).toBe('InternalFailure');
  });

  it('stops a counted fault after its count', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '500', count: 2 });
    await rejection(bedrock.send(new ListFoundationModelsCommand({})));
    await rejection(bedrock.send(new ListFoundationModelsCommand({})));
    await expect(bedrock.send(new ListFoundationModelsCommand({}))).resolves.toBeDefined();
    expect((await control(emulator.url, 'GET', '/faults')).body.faults).toEqual([]);
  });

  it('lets the SDK retry through a one-shot throttle', async () => {
    const retrying = new BedrockRuntimeClient(clientConfig(emulator.url, { maxAttempts: 3 }));
    try {
      await injectFault(emulator.url, { target: 'Converse', fault: '429', count: 1 });
      await expect(converse(retrying)).resolves.toBeDefined();
      expect((await control(emulator.url, 'GET', '/state')).body.calls.Converse).toBe(2);
    } finally {
      retrying.destroy();
    }
  });

  it('holds the response of a timeout fault until the SDK gives up', async () => {
    // This handler version only warns on requestTimeout unless told to throw.
    const impatient = new BedrockClient(
      clientConfig(emulator.url, { requestHandler: new NodeHttpHandler({ requestTimeout: 300, throwOnRequestTimeout: true }) }),
    );
    try {
      await injectFault(emulator.url, { target: 'ListFoundationModels', fault: 'timeout', count: 1 });
      const started = Date.now();
      const err = await rejection(impatient.send(new ListFoundationModelsCommand({})));
      expect(err.name).toBe('TimeoutError');
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      impatient.destroy();
    }
  });

  it('carries out the call of a lost fault but never answers it: the endpoint exists although the client timed out', async () => {
    const impatient = new SageMakerClient(
      clientConfig(emulator.url, { requestHandler: new NodeHttpHandler({ requestTimeout: 300, throwOnRequestTimeout: true }) }),
    );
    try {
      await createModelAndConfig(sm, 'lost');
      await injectFault(emulator.url, { target: 'CreateEndpoint', model: 'lost', fault: 'lost', count: 1 });
      const err = await rejection(impatient.send(new CreateEndpointCommand({ EndpointName: 'lost', EndpointConfigName: 'lost-config' })));
      expect(err.name).toBe('TimeoutError');
      const out = await sm.send(new DescribeEndpointCommand({ EndpointName: 'lost' }));
      expect(out.EndpointName).toBe('lost');
    } finally {
      impatient.destroy();
    }
  });

  it('holds an HTTP/2 Converse stream open until the Bedrock runtime client gives up', async () => {
    const impatient = new BedrockRuntimeClient(clientConfig(emulator.url, { requestHandler: new NodeHttp2Handler({ requestTimeout: 300 }) }));
    try {
      await injectFault(emulator.url, { target: 'Converse', fault: 'timeout', count: 1 });
      const err = await rejection(converse(impatient));
      expect(err.name).toBe('TimeoutError');
      await expect(converse(impatient)).resolves.toBeDefined();
    } finally {
      impatient.destroy();
    }
  });

  it('answers a malformed fault with a 200 the SDK cannot parse', async () => {
    await injectFault(emulator.url, { target: 'ListFoundationModels', fault: 'malformed', count: 1 });
    const err = await rejection(bedrock.send(new ListFoundationModelsCommand({})));
    expect(err.$metadata?.httpStatusCode).toBe(200);
    expect(err.message).toMatch(/Deserialization error|JSON/);
  });

  it('clears every fault on DELETE', async () => {
    await injectFault(emulator.url, { target: '*', fault: '500' });
    await control(emulator.url, 'DELETE', '/faults');
    await expect(bedrock.send(new ListFoundationModelsCommand({}))).resolves.toBeDefined();
  });

  it('removes a single fault by id', async () => {
    const { body } = await injectFault(emulator.url, { target: 'ListFoundationModels', fault: '500' });
    expect((await control(emulator.url, 'DELETE', `/faults/${body.id}`)).status).toBe(200);
    await expect(bedrock.send(new ListFoundationModelsCommand({}))).resolves.toBeDefined();
    expect((await control(emulator.url, 'DELETE', `/faults/${body.id}`)).status).toBe(404);
  });

  it('counts calls per operation and forgets them, and the endpoints, on reset', async () => {
    await deployEndpoint(sm, 'counted');
    await bedrock.send(new ListFoundationModelsCommand({}));
    const before = (await control(emulator.url, 'GET', '/state')).body;
    expect(before.calls).toMatchObject({ ListFoundationModels: 1, CreateModel: 1, CreateEndpointConfig: 1, CreateEndpoint: 1 });
    expect(before.endpoints).toEqual([expect.objectContaining({ name: 'counted', status: 'InService', configName: 'counted-config' })]);

    await control(emulator.url, 'POST', '/reset');
    const after = (await control(emulator.url, 'GET', '/state')).body;
    expect(after.calls).toEqual({});
    expect(after.endpoints).toEqual([]);
    expect((await rejection(sm.send(new DescribeEndpointCommand({ EndpointName: 'counted' })))).name).toBe('ValidationException');
  });

  it('changes the lifecycle delay at runtime through /config', async () => {
    const res = await control(emulator.url, 'POST', '/config', { lifecycleDelayMs: 25, responseDelayMs: 0 });
    expect(res.body).toEqual({ lifecycleDelayMs: 25, responseDelayMs: 0 });
    expect(emulator.options.lifecycleDelayMs).toBe(25);
    await control(emulator.url, 'POST', '/config', { lifecycleDelayMs: 0 });
  });
});

describe('per-request faults through the x-emulator-fault header', () => {
  const hostedChat = (fault: string, signal?: AbortSignal) =>
    fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'x-emulator-fault': fault },
      body: JSON.stringify({ model: 'meta/llama-3.1-8b-instruct', messages: [{ role: 'user', content: 'x' }] }),
      signal,
    });

  it('answers 500 with a problem document', async () => {
    const res = await hostedChat('500');
    expect(res.status).toBe(500);
    expect(((await res.json()) as any).title).toBe('Internal Server Error');
  });

  it('answers 429 with a problem document', async () => {
    const res = await hostedChat('429');
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ type: 'about:blank', status: 429, title: 'Too Many Requests' });
  });

  it('answers malformed with a 200 whose body is not JSON', async () => {
    const res = await hostedChat('malformed');
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow();
  });

  it('never answers a timeout, so the caller aborts', async () => {
    const err = await rejection(hostedChat('timeout', AbortSignal.timeout(200)));
    expect(err.name).toBe('TimeoutError');
  });
});
