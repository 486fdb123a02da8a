import { BedrockClient, GetFoundationModelCommand, ListFoundationModelsCommand } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, rejection } from './helpers';

let emulator: RunningEmulator;
let control: BedrockClient;
let runtime: BedrockRuntimeClient;

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, responseDelayMs: 5 });
  control = new BedrockClient(clientConfig(emulator.url));
  runtime = new BedrockRuntimeClient(clientConfig(emulator.url));
});

afterAll(async () => {
  control.destroy();
  runtime.destroy();
  await emulator.close();
});

describe('Bedrock control plane', () => {
  it('lists the fourteen shipped foundation models with ARNs, modalities and their lifecycle', async () => {
    const out = await control.send(new ListFoundationModelsCommand({}));
    expect(out.modelSummaries).toHaveLength(14);
    const haiku = out.modelSummaries?.find((m) => m.modelId === HAIKU);
    expect(haiku).toEqual({
      modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${HAIKU}`,
      modelId: HAIKU,
      modelName: 'Claude 3 Haiku',
      providerName: 'Anthropic',
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['TEXT'],
      responseStreamingSupported: true,
      customizationsSupported: [],
      inferenceTypesSupported: ['ON_DEMAND'],
      // Smithy date-time timestamps on the wire, which the SDK parses into Dates (AWS's model card dates).
      modelLifecycle: { status: 'LEGACY', startOfLifeTime: new Date('2024-03-13T00:00:00Z'), endOfLifeTime: new Date('2026-09-10T00:00:00Z') },
    });
  });

  it('filters the list by provider without regard to case', async () => {
    const out = await control.send(new ListFoundationModelsCommand({ byProvider: 'amazon' }));
    expect(out.modelSummaries?.map((m) => m.modelId).sort()).toEqual([
      'amazon.nova-lite-v1:0',
      'amazon.titan-embed-text-v2:0',
      'amazon.titan-text-express-v1',
    ]);
  });

  it('filters the list by output modality so only the embedding models answer EMBEDDING', async () => {
    const out = await control.send(new ListFoundationModelsCommand({ byOutputModality: 'EMBEDDING' }));
    expect(out.modelSummaries?.map((m) => m.modelId)).toEqual([
      'amazon.titan-embed-text-v2:0',
      'cohere.embed-v4:0',
      'cohere.embed-english-v3',
      'cohere.embed-multilingual-v3',
    ]);
  });

  it('filters the list by customization and inference type together', async () => {
    const out = await control.send(new ListFoundationModelsCommand({ byCustomizationType: 'FINE_TUNING', byInferenceType: 'ON_DEMAND' }));
    expect(out.modelSummaries?.map((m) => m.modelId).sort()).toEqual(['amazon.nova-lite-v1:0', 'amazon.titan-text-express-v1']);
  });

  it('rejects an unknown filter value with a ValidationException naming the allowed values', async () => {
    const err = await rejection(control.send(new ListFoundationModelsCommand({ byOutputModality: 'AUDIO' as never })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(
      "1 validation error detected: Value 'AUDIO' at 'byOutputModality' failed to satisfy constraint: Member must satisfy enum value set: [TEXT, IMAGE, EMBEDDING]",
    );
  });

  it('returns one model by id', async () => {
    const out = await control.send(new GetFoundationModelCommand({ modelIdentifier: 'mistral.mistral-7b-instruct-v0:2' }));
    expect(out.modelDetails?.modelName).toBe('Mistral 7B Instruct');
    expect(out.modelDetails?.providerName).toBe('Mistral AI');
  });

  it('returns one model by its foundation-model ARN', async () => {
    const arn = 'arn:aws:bedrock:us-east-1::foundation-model/cohere.command-r-v1:0';
    const out = await control.send(new GetFoundationModelCommand({ modelIdentifier: arn }));
    expect(out.modelDetails?.modelArn).toBe(arn);
  });

  it('answers an unknown model id with a 404 ResourceNotFoundException', async () => {
    const err = await rejection(control.send(new GetFoundationModelCommand({ modelIdentifier: 'acme.nope-v1:0' })));
    expect(err.name).toBe('ResourceNotFoundException');
    expect(err.message).toBe('Could not resolve the foundation model from the provided model identifier.');
    expect(err.$metadata.httpStatusCode).toBe(404);
  });
});

describe('Bedrock Converse', () => {
  it('replies deterministically, quoting the last user message', async () => {
    const out = await runtime.send(new ConverseCommand({ modelId: HAIKU, messages: [{ role: 'user', content: [{ text: 'Hello there' }] }] }));
    expect(out.output?.message?.role).toBe('assistant');
    expect(out.output?.message?.content?.[0]?.text).toBe(
      `Emulated reply from ${HAIKU}. You said: "Hello there". Context: 1 messages received; earlier user messages: []; system: no.`,
    );
    expect(out.stopReason).toBe('end_turn');
  });

  it('counts tokens from the characters that arrived, system prompt included', async () => {
    const out = await runtime.send(
      new ConverseCommand({
        modelId: HAIKU,
        system: [{ text: 'Be brief.' }],
        messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      }),
    );
    const reply = out.output?.message?.content?.[0]?.text ?? '';
    expect(out.usage).toEqual({
      inputTokens: Math.ceil('Be brief.Hi'.length / 4),
      outputTokens: Math.ceil(reply.length / 4),
      totalTokens: Math.ceil('Be brief.Hi'.length / 4) + Math.ceil(reply.length / 4),
    });
  });

  it('reports the configured response delay as latencyMs', async () => {
    const out = await runtime.send(new ConverseCommand({ modelId: HAIKU, messages: [{ role: 'user', content: [{ text: 'x' }] }] }));
    expect(out.metrics?.latencyMs).toBe(5);
  });

  it('echoes the earlier turns and the system prompt of a multi-turn conversation', async () => {
    const out = await runtime.send(
      new ConverseCommand({
        modelId: 'amazon.nova-lite-v1:0',
        system: [{ text: 'You are terse.' }],
        messages: [
          { role: 'user', content: [{ text: 'First question' }] },
          { role: 'assistant', content: [{ text: 'First answer' }] },
          { role: 'user', content: [{ text: 'Second question' }] },
          { role: 'assistant', content: [{ text: 'Second answer' }] },
          { role: 'user', content: [{ text: 'Third question' }] },
        ],
      }),
    );
    expect(out.output?.message?.content?.[0]?.text).toBe(
      'Emulated reply from amazon.nova-lite-v1:0. You said: "Third question". Context: 5 messages received; ' +
        'earlier user messages: [First question | Second question]; system: yes.',
    );
  });

  it('stops at maxTokens with stopReason max_tokens', async () => {
    const out = await runtime.send(
      new ConverseCommand({
        modelId: HAIKU,
        messages: [{ role: 'user', content: [{ text: 'Tell me everything' }] }],
        inferenceConfig: { maxTokens: 3 },
      }),
    );
    expect(out.stopReason).toBe('max_tokens');
    expect(out.output?.message?.content?.[0]?.text).toHaveLength(12);
    expect(out.usage?.outputTokens).toBe(3);
  });

  it('answers an unknown model with ResourceNotFoundException', async () => {
    const err = await rejection(
      runtime.send(new ConverseCommand({ modelId: 'acme.nope-v1:0', messages: [{ role: 'user', content: [{ text: 'x' }] }] })),
    );
    expect(err.name).toBe('ResourceNotFoundException');
    expect(err.message).toBe('Could not resolve the foundation model from the provided model identifier.');
  });

  it('rejects an empty conversation with a ValidationException', async () => {
    const err = await rejection(runtime.send(new ConverseCommand({ modelId: HAIKU, messages: [] })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
  });

  it('rejects a conversation that starts with the assistant', async () => {
    const err = await rejection(runtime.send(new ConverseCommand({ modelId: HAIKU, messages: [{ role: 'assistant', content: [{ text: 'Hi' }] }] })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/^A conversation must start with a user message/);
  });

  it('rejects two user messages in a row', async () => {
    const err = await rejection(
      runtime.send(
        new ConverseCommand({
          modelId: HAIKU,
          messages: [
            { role: 'user', content: [{ text: 'a' }] },
            { role: 'user', content: [{ text: 'b' }] },
          ],
        }),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/^A conversation must alternate between user and assistant roles/);
  });

  it('refuses to converse with an embedding model', async () => {
    const err = await rejection(
      runtime.send(new ConverseCommand({ modelId: 'amazon.titan-embed-text-v2:0', messages: [{ role: 'user', content: [{ text: 'x' }] }] })),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/doesn't support the model that you provided/);
  });
});

describe('Bedrock ConverseStream', () => {
  it('streams the same reply as Converse in event-stream frames the SDK decodes', async () => {
    const messages = [{ role: 'user' as const, content: [{ text: 'Stream please' }] }];
    const plain = await runtime.send(new ConverseCommand({ modelId: HAIKU, messages }));
    const out = await runtime.send(new ConverseStreamCommand({ modelId: HAIKU, messages }));

    const kinds: string[] = [];
    let text = '';
    let usage: unknown;
    let stopReason: string | undefined;
    for await (const event of out.stream ?? []) {
      kinds.push(Object.keys(event).find((k) => (event as unknown as Record<string, unknown>)[k] !== undefined) ?? '?');
      if (event.contentBlockDelta?.delta?.text) text += event.contentBlockDelta.delta.text;
      if (event.messageStop) stopReason = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    expect(text).toBe(plain.output?.message?.content?.[0]?.text);
    expect(kinds[0]).toBe('messageStart');
    expect(kinds.slice(-3)).toEqual(['contentBlockStop', 'messageStop', 'metadata']);
    expect(kinds.filter((k) => k === 'contentBlockDelta').length).toBeGreaterThan(1);
    expect(stopReason).toBe('end_turn');
    expect(usage).toEqual(plain.usage);
  });
});
