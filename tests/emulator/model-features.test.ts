/**
 * The emulator's model features beyond text, on each wire, through the real clients: Bedrock Converse
 * tool use and images and InvokeModel's embedding bodies (AWS SDK), the hosted API's tools,
 * response_format and /v1/embeddings (fetch), and a dedicated endpoint's Messages API with tools and
 * a TEI container's embeddings (SageMaker runtime).
 */
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, InvokeModelCommand, type Message } from '@aws-sdk/client-bedrock-runtime';
import { CreateEndpointCommand, CreateEndpointConfigCommand, CreateModelCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { PNG, clientConfig, decode, injectFault, rejection } from './helpers';

let emulator: RunningEmulator;
let bedrock: BedrockRuntimeClient;
let sm: SageMakerClient;
let smRuntime: SageMakerRuntimeClient;

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const COMMAND_R = 'cohere.command-r-v1:0';
const TITAN_TEXT = 'amazon.titan-text-express-v1';
const KEY = 'features-key';

const weather = {
  toolSpec: {
    name: 'get_weather',
    description: 'The weather in a city',
    inputSchema: {
      json: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city'],
      },
    },
  },
};
const time = { toolSpec: { name: 'get_time', inputSchema: { json: { type: 'object', properties: { zone: { type: 'string' } } } } } };

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, hostedApiKey: KEY });
  bedrock = new BedrockRuntimeClient(clientConfig(emulator.url));
  sm = new SageMakerClient(clientConfig(emulator.url));
  smRuntime = new SageMakerRuntimeClient(clientConfig(emulator.url));
});
afterAll(async () => {
  bedrock.destroy();
  sm.destroy();
  smRuntime.destroy();
  await emulator.close();
});

const converse = (modelId: string, messages: Message[], extra: Record<string, unknown> = {}) =>
  bedrock.send(new ConverseCommand({ modelId, messages, ...extra }));

describe('Bedrock Converse tool use', () => {
  const ask: Message[] = [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }];

  it('calls the first tool offered after a short text, with arguments made from its schema, and stops for tool_use', async () => {
    const out = await converse(HAIKU, ask, { toolConfig: { tools: [weather, time] } });
    const [text, call] = out.output?.message?.content ?? [];
    expect(text).toEqual({ text: 'Calling get_weather.' });
    expect(call?.toolUse).toEqual({
      toolUseId: expect.stringMatching(/^tooluse_/),
      name: 'get_weather',
      input: { city: 'Weather in Paris?', unit: 'celsius' },
    });
    expect(out.stopReason).toBe('tool_use');
  });

  it('calls the tool toolChoice names, with no text before it', async () => {
    const out = await converse(HAIKU, ask, { toolConfig: { tools: [weather, time], toolChoice: { tool: { name: 'get_time' } } } });
    expect(out.output?.message?.content?.map((b) => b.toolUse?.name ?? b.text)).toEqual(['get_time']);
  });

  it('calls every tool when the user asks for all tools', async () => {
    const out = await converse(HAIKU, [{ role: 'user', content: [{ text: 'use all tools' }] }], { toolConfig: { tools: [weather, time] } });
    expect(out.output?.message?.content?.filter((b) => b.toolUse).map((b) => b.toolUse?.name)).toEqual(['get_weather', 'get_time']);
  });

  it('answers tool results in text that quotes them, failures marked', async () => {
    const first = await converse(HAIKU, ask, { toolConfig: { tools: [weather] } });
    const id = first.output?.message?.content?.find((b) => b.toolUse)?.toolUse?.toolUseId as string;
    const out = await converse(
      HAIKU,
      [
        ...ask,
        first.output?.message as Message,
        { role: 'user', content: [{ toolResult: { toolUseId: id, content: [{ json: { temp: 21 } }], status: 'error' } }] },
      ],
      { toolConfig: { tools: [weather] } },
    );
    expect(out.output?.message?.content).toEqual([{ text: `Emulated reply from ${HAIKU}. Tool results: get_weather failed: {"temp":21}.` }]);
    expect(out.stopReason).toBe('end_turn');
  });

  it('refuses tool blocks without a toolConfig, as Bedrock does', async () => {
    const err = await rejection(
      converse(HAIKU, [
        ...ask,
        { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'sunny' }] } }] },
      ]),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  });

  it('refuses tool use that is not answered by tool results in the next user message', async () => {
    const err = await rejection(
      converse(
        HAIKU,
        [
          ...ask,
          { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } }] },
          { role: 'user', content: [{ text: 'well?' }] },
        ],
        { toolConfig: { tools: [weather] } },
      ),
    );
    expect(err.message).toBe('Expected toolResult blocks at messages.2.content for the following Ids: t1');
  });

  it('refuses tools for a model without tool use', async () => {
    const err = await rejection(converse(TITAN_TEXT, ask, { toolConfig: { tools: [weather] } }));
    expect(err.message).toBe("This model doesn't support tool use.");
  });

  it('refuses toolChoice any for a model that takes auto only', async () => {
    const err = await rejection(converse(COMMAND_R, ask, { toolConfig: { tools: [weather], toolChoice: { any: {} } } }));
    expect(err.message).toMatch(/doesn't support the toolChoice.any field/);
  });

  it('refuses tool use in ConverseStream for a model that cannot stream it', async () => {
    const err = await rejection(bedrock.send(new ConverseStreamCommand({ modelId: COMMAND_R, messages: ask, toolConfig: { tools: [weather] } })));
    expect(err.message).toBe("This model doesn't support tool use in streaming mode.");
  });

  it('streams a tool call as contentBlockStart (id, name) and input pieces that make the same input', async () => {
    const plain = await converse(HAIKU, ask, { toolConfig: { tools: [weather] } });
    const out = await bedrock.send(new ConverseStreamCommand({ modelId: HAIKU, messages: ask, toolConfig: { tools: [weather] } }));
    let start: unknown;
    let input = '';
    let stopReason: string | undefined;
    for await (const event of out.stream ?? []) {
      if (event.contentBlockStart?.start?.toolUse)
        start = { index: event.contentBlockStart.contentBlockIndex, ...event.contentBlockStart.start.toolUse };
      if (event.contentBlockDelta?.delta?.toolUse) input += event.contentBlockDelta.delta.toolUse.input;
      if (event.messageStop) stopReason = event.messageStop.stopReason;
    }
    const call = plain.output?.message?.content?.[1]?.toolUse;
    expect(start).toEqual({ index: 1, toolUseId: call?.toolUseId, name: 'get_weather' });
    expect(JSON.parse(input)).toEqual(call?.input);
    expect(stopReason).toBe('tool_use');
  });
});

describe('Bedrock Converse images', () => {
  it('acknowledges the images of a user message', async () => {
    const out = await converse(HAIKU, [
      {
        role: 'user',
        content: [
          { text: 'What is this?' },
          { image: { format: 'png', source: { bytes: PNG } } },
          { image: { format: 'png', source: { bytes: PNG } } },
        ],
      },
    ]);
    expect(out.output?.message?.content?.[0]?.text).toMatch(/ 2 images received\.$/);
  });

  it('refuses bytes that are not an image of the format named', async () => {
    const err = await rejection(converse(HAIKU, [{ role: 'user', content: [{ image: { format: 'jpeg', source: { bytes: PNG } } }] }]));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/not a valid jpeg image/);
  });

  it('refuses an image for a text-only model', async () => {
    const err = await rejection(converse(TITAN_TEXT, [{ role: 'user', content: [{ image: { format: 'png', source: { bytes: PNG } } }] }]));
    expect(err.message).toMatch(/doesn't support the image content block/);
  });
});

describe('Bedrock InvokeModel embeddings', () => {
  const invoke = (modelId: string, body: unknown) =>
    bedrock.send(new InvokeModelCommand({ modelId, contentType: 'application/json', body: new TextEncoder().encode(JSON.stringify(body)) }));

  it('Titan v2 answers a normalised vector of the dimensions asked for, the same for the same text', async () => {
    const a = decode((await invoke('amazon.titan-embed-text-v2:0', { inputText: 'hello world', dimensions: 256 })).body);
    const b = decode((await invoke('amazon.titan-embed-text-v2:0', { inputText: 'hello world', dimensions: 256 })).body);
    expect(a.embedding).toHaveLength(256);
    expect(a.inputTextTokenCount).toBe(3);
    expect(Math.hypot(...a.embedding)).toBeCloseTo(1, 4);
    expect(b.embedding).toEqual(a.embedding);
  });

  it('Titan v2 refuses dimensions it does not offer in Bedrock’s words', async () => {
    const err = await rejection(invoke('amazon.titan-embed-text-v2:0', { inputText: 'x', dimensions: 300 }));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe('Malformed input request: #/dimensions: 300 is not a valid enum value, please reformat your input and try again.');
  });

  it('Cohere answers one 1024-number vector per text and puts the token count in a header', async () => {
    const command = new InvokeModelCommand({
      modelId: 'cohere.embed-english-v3',
      contentType: 'application/json',
      body: new TextEncoder().encode(JSON.stringify({ texts: ['one', 'two two'], input_type: 'search_document' })),
    });
    let header: string | undefined;
    command.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        header = (result.response as { headers: Record<string, string> }).headers['x-amzn-bedrock-input-token-count'];
        return result;
      },
      { step: 'deserialize' },
    );
    const body = decode((await bedrock.send(command)).body);
    expect(body.response_type).toBe('embeddings_floats');
    expect(body.embeddings.map((v: number[]) => v.length)).toEqual([1024, 1024]);
    expect(body.embeddings[0]).not.toEqual(body.embeddings[1]);
    expect(header).toBe('3');
  });

  it('Cohere refuses more than 96 texts and a body without input_type', async () => {
    const many = await rejection(invoke('cohere.embed-english-v3', { texts: Array.from({ length: 97 }, () => 'x'), input_type: 'search_query' }));
    expect(many.message).toMatch(/#\/texts: expected maximum item count: 96, found: 97/);
    const untyped = await rejection(invoke('cohere.embed-english-v3', { texts: ['x'] }));
    expect(untyped.message).toMatch(/required key \[input_type\] not found/);
  });

  it('a fault on InvokeModel applies like any other operation', async () => {
    await injectFault(emulator.url, { target: 'InvokeModel', model: 'cohere.embed-multilingual-v3', fault: '429', count: 1 });
    const err = await rejection(invoke('cohere.embed-multilingual-v3', { texts: ['x'], input_type: 'search_query' }));
    expect(err.name).toBe('ThrottlingException');
  });
});

describe('hosted API tools, JSON and embeddings', () => {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${emulator.url}/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];

  it('answers offered tools with tool_calls and finish_reason tool_calls, then tool results with text quoting them', async () => {
    const messages: any[] = [{ role: 'user', content: 'find cats' }];
    const first = await post('/chat/completions', { model: 'meta/llama-3.1-8b-instruct', messages, tools });
    const call = first.body.choices[0].message.tool_calls[0];
    expect(call).toEqual({ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'lookup', arguments: '{"q":"find cats"}' } });
    expect(first.body.choices[0].finish_reason).toBe('tool_calls');
    messages.push(first.body.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '3 cats' });
    const second = await post('/chat/completions', { model: 'meta/llama-3.1-8b-instruct', messages, tools });
    expect(second.body.choices[0].message.content).toBe('Emulated reply from meta/llama-3.1-8b-instruct. Tool results: lookup: 3 cats.');
  });

  it('refuses a tool message that answers no tool call', async () => {
    const res = await post('/chat/completions', {
      model: 'meta/llama-3.1-8b-instruct',
      messages: [{ role: 'tool', tool_call_id: 'x', content: 'y' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/must be a response to a preceding message with 'tool_calls'/);
  });

  it('answers response_format json_schema with a document of the schema', async () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 3 }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['n'],
    };
    const res = await post('/chat/completions', {
      model: 'meta/llama-3.1-8b-instruct',
      messages: [{ role: 'user', content: 'go' }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
    });
    expect(JSON.parse(res.body.choices[0].message.content)).toEqual({ n: 3, tags: ['go'] });
  });

  it('streams tool calls as OpenAI deltas: id and name first, then arguments in pieces', async () => {
    const res = await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'meta/llama-3.1-8b-instruct',
        messages: [{ role: 'user', content: 'find dogs' }],
        tools,
        tool_choice: 'required',
        stream: true,
      }),
    });
    const chunks = (await res.text())
      .split('\n\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)));
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), function: { name: 'lookup', arguments: '' } });
    expect(deltas.slice(1).length).toBeGreaterThan(1);
    expect(deltas.map((d: any) => d.function.arguments).join('')).toBe('{"q":"find dogs"}');
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('reads data: URL images for the vision model and refuses them for the others', async () => {
    const content = [
      { type: 'text', text: 'what is it' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ];
    const vision = await post('/chat/completions', { model: 'meta/llama-3.2-11b-vision-instruct', messages: [{ role: 'user', content }] });
    expect(vision.body.choices[0].message.content).toMatch(/1 image received\.$/);
    const text = await post('/chat/completions', { model: 'meta/llama-3.1-8b-instruct', messages: [{ role: 'user', content }] });
    expect(text.status).toBe(400);
    expect(text.body.detail).toBe('Model meta/llama-3.1-8b-instruct does not support image input');
  });

  it('embeds a batch in OpenAI’s shape with usage, as floats or base64', async () => {
    const floats = await post('/embeddings', { model: 'baai/bge-m3', input: ['a', 'bb'] });
    expect(floats.body.data.map((d: any) => [d.index, d.embedding.length])).toEqual([
      [0, 1024],
      [1, 1024],
    ]);
    expect(floats.body.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    const encoded = await post('/embeddings', { model: 'baai/bge-m3', input: 'a', encoding_format: 'base64' });
    const bytes = Buffer.from(encoded.body.data[0].embedding, 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 1024))[0]).toBeCloseTo(floats.body.data[0].embedding[0], 5);
  });

  it('refuses embeddings of a chat model', async () => {
    const res = await post('/embeddings', { model: 'meta/llama-3.1-8b-instruct', input: 'a' });
    expect(res.status).toBe(400);
  });
});

describe('dedicated endpoints: Messages API tools and a TEI container', () => {
  async function endpoint(name: string, image: string) {
    await sm.send(
      new CreateModelCommand({ ModelName: `${name}-m`, ExecutionRoleArn: 'arn:aws:iam::123456789012:role/r', PrimaryContainer: { Image: image } }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: `${name}-c`,
        ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: `${name}-m`, InitialInstanceCount: 1, InstanceType: 'ml.g5.xlarge' }],
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: `${name}-c` }));
  }
  const invoke = async (name: string, body: unknown) =>
    decode(
      (
        await smRuntime.send(
          new InvokeEndpointCommand({ EndpointName: name, ContentType: 'application/json', Body: new TextEncoder().encode(JSON.stringify(body)) }),
        )
      ).Body,
    );

  beforeAll(async () => {
    await endpoint(
      'tgi-ep',
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-py310-cu121-ubuntu22.04',
    );
    await endpoint('tei-ep', '683313688378.dkr.ecr.us-east-1.amazonaws.com/tei:2.0.1-tei1.4.0-gpu-py310-cu122-ubuntu22.04');
  });

  it('a TGI container answers tools with tool_calls', async () => {
    const body = await invoke('tgi-ep', {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
    });
    expect(body.choices[0].message.tool_calls[0].function).toEqual({ name: 'f', arguments: '{}' });
  });

  it('a TEI container embeds its inputs, with the dimensions asked for', async () => {
    const body = await invoke('tei-ep', { inputs: ['x', 'y'], normalize: true, dimensions: 384 });
    expect(body.map((v: number[]) => v.length)).toEqual([384, 384]);
  });

  it('a TEI container refuses more than 32 texts with its 413, wrapped in ModelError', async () => {
    const err = await rejection(invoke('tei-ep', { inputs: Array.from({ length: 33 }, () => 'x') }));
    expect(err.name).toBe('ModelError');
    expect(err.OriginalStatusCode).toBe(413);
    expect(err.OriginalMessage).toBe('batch size 33 > maximum allowed batch size 32');
  });

  it('a TEI container refuses a chat body', async () => {
    const err = await rejection(invoke('tei-ep', { messages: [{ role: 'user', content: 'hi' }] }));
    expect(err.OriginalStatusCode).toBe(422);
  });
});
