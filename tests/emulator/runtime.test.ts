import { CreateEndpointCommand, SageMakerClient, UpdateEndpointCommand } from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, createModelAndConfig, decode, deployEndpoint, injectFault, rejection } from './helpers';

let emulator: RunningEmulator;
let sm: SageMakerClient;
let rt: SageMakerRuntimeClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 30 });
  sm = new SageMakerClient(clientConfig(emulator.url));
  rt = new SageMakerRuntimeClient(clientConfig(emulator.url));
  await deployEndpoint(sm, 'chat');
});

afterAll(async () => {
  sm.destroy();
  rt.destroy();
  await emulator.close();
});

afterEach(async () => {
  await control(emulator.url, 'DELETE', '/faults');
});

const invoke = (endpoint: string, payload: unknown) =>
  rt.send(
    new InvokeEndpointCommand({
      EndpointName: endpoint,
      ContentType: 'application/json',
      Body: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );

describe('SageMaker InvokeEndpoint', () => {
  it('answers an OpenAI-style chat request with a chat.completion naming the endpoint model', async () => {
    const out = await invoke('chat', {
      messages: [
        { role: 'system', content: 'Be helpful.' },
        { role: 'user', content: 'Ping' },
      ],
      max_tokens: 256,
    });
    const body = decode(out.Body);
    expect(out.ContentType).toBe('application/json');
    expect(out.InvokedProductionVariant).toBe('AllTraffic');
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'chat-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Emulated reply from chat-model. You said: "Ping". Context: 1 messages received; earlier user messages: []; system: yes.',
          },
          finish_reason: 'stop',
        },
      ],
    });
    expect(body.usage).toEqual({
      prompt_tokens: Math.ceil('Be helpful.Ping'.length / 4),
      completion_tokens: Math.ceil(body.choices[0].message.content.length / 4),
      total_tokens: body.usage.prompt_tokens + body.usage.completion_tokens,
    });
  });

  it('echoes earlier user turns of a multi-turn conversation', async () => {
    const body = decode(
      (
        await invoke('chat', {
          messages: [
            { role: 'user', content: 'One' },
            { role: 'assistant', content: 'Ack one' },
            { role: 'user', content: [{ type: 'text', text: 'Two' }] },
          ],
        })
      ).Body,
    );
    expect(body.choices[0].message.content).toContain('Context: 3 messages received; earlier user messages: [One]; system: no.');
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const body = decode((await invoke('chat', { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 })).Body);
    expect(body.choices[0].finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(2);
  });

  it("answers TGI's native inputs shape with generated_text", async () => {
    const body = decode((await invoke('chat', { inputs: 'Hello TGI', parameters: { max_new_tokens: 64 } })).Body);
    expect(body).toEqual([{ generated_text: expect.stringContaining('You said: "Hello TGI"') }]);
  });

  it('answers an unknown endpoint with ValidationError naming the account', async () => {
    const err = await rejection(invoke('ghost', { messages: [{ role: 'user', content: 'x' }] }));
    expect(err.name).toBe('ValidationError');
    expect(err.message).toBe('Endpoint ghost of account 123456789012 not found.');
    expect(err.$metadata.httpStatusCode).toBe(400);
  });

  it('answers an endpoint that is still Creating like an unknown one', async () => {
    await createModelAndConfig(sm, 'slow');
    emulator.options.lifecycleDelayMs = 60_000;
    try {
      await sm.send(new CreateEndpointCommand({ EndpointName: 'slow', EndpointConfigName: 'slow-config' }));
      const err = await rejection(invoke('slow', { messages: [{ role: 'user', content: 'x' }] }));
      expect(err.name).toBe('ValidationError');
      expect(err.message).toBe('Endpoint slow of account 123456789012 not found.');
    } finally {
      emulator.options.lifecycleDelayMs = 30;
    }
  });

  it('keeps serving on the old model while the endpoint is Updating', async () => {
    await deployEndpoint(sm, 'steady');
    await createModelAndConfig(sm, 'steady-v2');
    emulator.options.lifecycleDelayMs = 60_000;
    try {
      await sm.send(new UpdateEndpointCommand({ EndpointName: 'steady', EndpointConfigName: 'steady-v2-config' }));
      const body = decode((await invoke('steady', { messages: [{ role: 'user', content: 'still there?' }] })).Body);
      expect(body.model).toBe('steady-model');
    } finally {
      emulator.options.lifecycleDelayMs = 30;
    }
  });

  it('answers a body the container cannot read with ModelError carrying the original status', async () => {
    const err = await rejection(invoke('chat', { prompt: 'not a chat request' }));
    expect(err.name).toBe('ModelError');
    expect(err.$metadata.httpStatusCode).toBe(424);
    expect(err.OriginalStatusCode).toBe(422);
    expect(err.message).toMatch(/^Received client error \(422\) from primary with message "/);
  });

  it('answers a fail fault with ModelError pointing at the endpoint logs', async () => {
    await injectFault(emulator.url, { target: 'InvokeEndpoint', model: 'chat', fault: 'fail', count: 1 });
    const err = await rejection(invoke('chat', { messages: [{ role: 'user', content: 'x' }] }));
    expect(err.name).toBe('ModelError');
    expect(err.OriginalStatusCode).toBe(500);
    expect(err.message).toMatch(/^Received server error \(500\) from primary with message ".*"\. See https:\/\/us-east-1\.console/);
    expect(err.message).toContain('/aws/sagemaker/Endpoints/chat in account 123456789012');
    expect(err.LogStreamArn).toBe('arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/Endpoints/chat');
  });

  it('matches a fault on the model behind the endpoint as well as the endpoint name', async () => {
    await injectFault(emulator.url, { target: 'InvokeEndpoint', model: 'chat-model', fault: '500', count: 1 });
    const err = await rejection(invoke('chat', { messages: [{ role: 'user', content: 'x' }] }));
    expect(err.name).toBe('InternalFailure');
    expect(err.$metadata.httpStatusCode).toBe(500);
  });
});
