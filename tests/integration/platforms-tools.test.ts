/**
 * The three chat adapters beyond text, through the real clients against a private emulator: tools
 * (a call, then its result, then the answer), streamed tool calls, tool choice, JSON output (native on
 * the hosted API and the dedicated containers, a forced tool call on Bedrock) and images. Private,
 * because the dedicated endpoints are deployed here and faults must not reach other files.
 */
import { jest } from '@jest/globals';
import { BadRequest, UpstreamError } from '../../lib/errors';
import { createDedicatedChat } from '../../lib/platforms/dedicated/chat';
import { createDedicatedEndpoints } from '../../lib/platforms/dedicated/endpoints';
import { createHostedPlatform } from '../../lib/platforms/hosted/api';
import { checkJsonOutput } from '../../lib/platforms/json-output';
import { createManagedChat } from '../../lib/platforms/managed/chat';
import type { ChatCapable, ChatReply, ChatRequest, ChatStreamEvent, ChatTurn, OutputFormat, ToolSpec } from '../../lib/platforms/types';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { PNG, control, rejection } from '../emulator/helpers';

jest.setTimeout(60_000);

const HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const COMMAND_R = 'cohere.command-r-v1:0';
const TITAN_TEXT = 'amazon.titan-text-express-v1';
const LLAMA = 'meta/llama-3.1-8b-instruct';
const HOSTED_VISION = 'meta/llama-3.2-11b-vision-instruct';
const TGI_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-py310-cu121-ubuntu22.04';
const VISION_HUB = 'arn:aws:sagemaker:us-east-1:aws:hub-content/SageMakerPublicHub/Model/meta-vlm-llama-3-2-11b-vision-instruct/1.1.0';

type Platform = 'managed' | 'dedicated' | 'hosted';
let emulator: RunningEmulator;
const adapters = {} as Record<Platform, { chat: ChatCapable; target: string; vision: string; textOnly: string }>;
const managedChat = () => adapters.managed.chat;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, hostedApiKey: 'tools-key' });
  const options = { endpoint: emulator.url, timeoutMs: 2000, maxAttempts: 1 };
  const endpoints = createDedicatedEndpoints(options);
  const deploy = (endpointName: string, model: { inferenceImage?: string; modelPackageArn?: string; acceptEula?: boolean }) =>
    endpoints.deploy({
      resourceId: '00000000-0000-4000-8000-000000000022',
      endpointName,
      instanceType: 'ml.g5.12xlarge',
      instanceCount: 1,
      executionRoleArn: 'arn:aws:iam::123456789012:role/r',
      subnetIds: [],
      securityGroupIds: [],
      ...model,
    });
  await deploy('tools-tgi', { inferenceImage: TGI_IMAGE });
  await deploy('tools-vision', { modelPackageArn: VISION_HUB, acceptEula: true });
  endpoints.destroy();
  adapters.managed = { chat: createManagedChat(options), target: HAIKU, vision: HAIKU, textOnly: TITAN_TEXT };
  adapters.dedicated = { chat: createDedicatedChat(options), target: 'tools-tgi', vision: 'tools-vision', textOnly: 'tools-tgi' };
  adapters.hosted = {
    chat: createHostedPlatform({ baseUrl: `${emulator.url}/v1`, apiKey: 'tools-key', timeoutMs: 2000, maxAttempts: 1 }),
    target: LLAMA,
    vision: HOSTED_VISION,
    textOnly: LLAMA,
  };
});
afterAll(() => emulator.close());

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city'],
  },
};
const clock: ToolSpec = { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } };
const ask = (text: string): ChatTurn[] => [{ role: 'user', content: text }];

async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const all: ChatStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The turns that answer a reply's tool calls: the assistant's calls, then one result per call. */
const answered = (reply: ChatReply, result: (name: string) => string, isError = false): ChatTurn[] => [
  { role: 'assistant', content: reply.content, toolCalls: reply.toolCalls },
  ...(reply.toolCalls ?? []).map((c) => ({ role: 'tool' as const, toolCallId: c.id, content: result(c.name), isError })),
];

describe.each(['managed', 'dedicated', 'hosted'] as const)('%s tools', (platform) => {
  const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
    target: adapters[platform].target,
    messages: ask('Weather in Paris?'),
    tools: [weather, clock],
    ...extra,
  });

  test('a model offered tools answers with a tool call: an id, the tool, its arguments as JSON text, finish reason tool_calls', async () => {
    const reply = await adapters[platform].chat.chat(request());
    expect(reply.toolCalls).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: expect.any(String) }]);
    expect(JSON.parse(reply.toolCalls?.[0]?.arguments ?? '')).toEqual({ city: 'Weather in Paris?', unit: 'celsius' });
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.tokensIn).toBeGreaterThan(0);
  });

  test('a two-step loop: the call, then its result, then an answer that uses the result', async () => {
    const { chat } = adapters[platform];
    const first = await chat.chat(request());
    const second = await chat.chat(request({ messages: [...ask('Weather in Paris?'), ...answered(first, () => '21 degrees and sunny')] }));
    expect(second.toolCalls).toBeUndefined();
    expect(second.finishReason).toBe('stop');
    expect(second.content).toContain('get_weather');
    expect(second.content).toContain('21 degrees and sunny');
  });

  test('a failed tool result is sent as one', async () => {
    const { chat } = adapters[platform];
    const first = await chat.chat(request());
    const second = await chat.chat(request({ messages: [...ask('Weather in Paris?'), ...answered(first, () => 'no such city', true)] }));
    expect(second.content).toMatch(/failed: no such city|Error: no such city/);
  });

  test('streamed, a tool call opens (index, id, name) and its arguments arrive in pieces that make the same arguments as chat', async () => {
    const { chat } = adapters[platform];
    const [events, whole] = await Promise.all([collect(chat.chatStream(request())), chat.chat(request())]);
    const open = events.filter((e) => e.kind === 'tool_call');
    expect(open).toEqual([{ kind: 'tool_call', index: 0, id: whole.toolCalls?.[0]?.id, name: 'get_weather' }]);
    const pieces = events.filter((e) => e.kind === 'tool_arguments');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p.index === 0)).toBe(true);
    expect(pieces.map((p) => p.text).join('')).toBe(whole.toolCalls?.[0]?.arguments);
    expect(events.find((e) => e.kind === 'stop')).toEqual({ kind: 'stop', finishReason: 'tool_calls' });
    expect(events.at(-1)).toMatchObject({ kind: 'usage', tokensIn: whole.tokensIn });
  });

  test('several tool calls in one answer are numbered in order, streamed or not', async () => {
    const { chat } = adapters[platform];
    const several = request({ messages: ask('use all tools') });
    const reply = await chat.chat(several);
    expect(reply.toolCalls?.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
    const events = await collect(chat.chatStream(several));
    expect(events.filter((e) => e.kind === 'tool_call').map((e) => e.kind === 'tool_call' && [e.index, e.name])).toEqual([
      [0, 'get_weather'],
      [1, 'get_time'],
    ]);
  });

  test('a named tool choice makes the model call that tool', async () => {
    const reply = await adapters[platform].chat.chat(request({ toolChoice: { name: 'get_time' } }));
    expect(reply.toolCalls?.map((c) => c.name)).toEqual(['get_time']);
  });

  test('tool choice none answers in text, even with tool calls in the history', async () => {
    const { chat } = adapters[platform];
    const first = await chat.chat(request());
    const reply = await chat.chat(
      request({
        toolChoice: 'none',
        messages: [...ask('Weather in Paris?'), ...answered(first, () => 'sunny'), { role: 'user', content: 'thanks, and now?' }],
      }),
    );
    expect(reply.toolCalls).toBeUndefined();
    expect(reply.finishReason).toBe('stop');
    expect(reply.content).toContain('thanks, and now?');
  });
});

describe.each(['managed', 'dedicated', 'hosted'] as const)('%s JSON output', (platform) => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 }, dry: { type: 'boolean' } },
    required: ['city', 'days', 'dry'],
    additionalProperties: false,
  };
  const format: OutputFormat = { type: 'json_schema', name: 'forecast', schema, strict: true };
  const request = (outputFormat: OutputFormat): ChatRequest => ({
    target: adapters[platform].target,
    messages: ask('Forecast for Oslo'),
    outputFormat,
  });

  test('json_schema: the content is a document that validates, with no tool call and finish reason stop', async () => {
    const reply = await adapters[platform].chat.chat(request(format));
    expect(checkJsonOutput(reply.content, format)).toEqual({ valid: true, value: { city: 'Forecast for Oslo', days: 1, dry: true } });
    expect(reply.toolCalls).toBeUndefined();
    expect(reply.finishReason).toBe('stop');
  });

  test('json_schema streamed: the document arrives as text deltas', async () => {
    const events = await collect(adapters[platform].chat.chatStream(request(format)));
    const text = events.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join('');
    expect(checkJsonOutput(text, format).valid).toBe(true);
    expect(events.some((e) => e.kind === 'tool_call')).toBe(false);
    expect(events.find((e) => e.kind === 'stop')).toEqual({ kind: 'stop', finishReason: 'stop' });
  });

  test('json_object: the content is a JSON object', async () => {
    const reply = await adapters[platform].chat.chat(request({ type: 'json_object' }));
    expect(checkJsonOutput(reply.content, { type: 'json_object' }).valid).toBe(true);
  });
});

describe.each(['managed', 'dedicated', 'hosted'] as const)('%s images', (platform) => {
  const image = (target: string): ChatRequest => ({
    target,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
        ],
      },
    ],
  });

  test('an image part reaches a model that reads images', async () => {
    const reply = await adapters[platform].chat.chat(image(adapters[platform].vision));
    expect(reply.content).toContain('You said: "What is in this picture?"');
    expect(reply.content).toMatch(/1 image received\.$/);
  });

  test('an image for a text-only model is the platform’s refusal, an UpstreamError, not a crash', async () => {
    const err = await rejection(adapters[platform].chat.chat(image(adapters[platform].textOnly)));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(new RegExp(`^The (model on the )?${platform} platform`));
  });
});

describe('managed specifics', () => {
  test('consecutive tool results go in one user message, so a parallel call is answered at once', async () => {
    const first = await managedChat().chat({ target: HAIKU, messages: ask('use all tools'), tools: [weather, clock] });
    const second = await managedChat().chat({
      target: HAIKU,
      tools: [weather, clock],
      messages: [...ask('use all tools'), ...answered(first, (name) => `${name} done`)],
    });
    expect(second.content).toBe(`Emulated reply from ${HAIKU}. Tool results: get_weather: get_weather done | get_time: get_time done.`);
  });

  test('a model that cannot stream tool use (Command R) still streams: one Converse call replayed as events', async () => {
    const request: ChatRequest = { target: COMMAND_R, messages: ask('Weather in Paris?'), tools: [weather] };
    const before = emulator.state.calls.ConverseStream ?? 0;
    const events = await collect(managedChat().chatStream(request));
    expect(events.map((e) => e.kind)).toEqual(['text', 'tool_call', 'tool_arguments', 'stop', 'usage']);
    expect(events[1]).toMatchObject({ kind: 'tool_call', index: 0, name: 'get_weather' });
    expect(emulator.state.calls.ConverseStream ?? 0).toBe(before);
  });

  test('tools for a model without tool use are refused before any call, naming the model and the field', async () => {
    const before = emulator.state.calls.Converse ?? 0;
    const err = await rejection(managedChat().chat({ target: TITAN_TEXT, messages: ask('hi'), tools: [weather] }));
    expect(err).toBeInstanceOf(BadRequest);
    expect(err).toMatchObject({ message: `The managed model "${TITAN_TEXT}" cannot use tools`, param: 'tools' });
    expect(emulator.state.calls.Converse ?? 0).toBe(before);
  });

  test('a required tool call or JSON output on a model that cannot be forced to call a tool is refused', async () => {
    const required = await rejection(managedChat().chat({ target: COMMAND_R, messages: ask('hi'), tools: [weather], toolChoice: 'required' }));
    expect(required).toMatchObject({ param: 'tool_choice' });
    const json = await rejection(managedChat().chat({ target: COMMAND_R, messages: ask('hi'), outputFormat: { type: 'json_object' } }));
    expect(json).toMatchObject({ param: 'response_format' });
  });

  test('tool choice none with tool calls in the history sends them as text, since Converse refuses tool blocks without tools', async () => {
    const first = await managedChat().chat({ target: HAIKU, messages: ask('Weather in Paris?'), tools: [weather] });
    const reply = await managedChat().chat({
      target: HAIKU,
      tools: [weather],
      toolChoice: 'none',
      messages: [...ask('Weather in Paris?'), ...answered(first, () => 'sunny'), { role: 'user', content: 'thanks' }],
    });
    expect(reply.content).toContain(`[the tool call ${first.toolCalls?.[0]?.id} returned: sunny]`);
  });

  test('required forces some tool (toolChoice any)', async () => {
    const reply = await managedChat().chat({ target: HAIKU, messages: ask('hi'), tools: [weather, clock], toolChoice: 'required' });
    expect(reply.toolCalls?.map((c) => c.name)).toEqual(['get_weather']);
    // A forced call has no remarks before it.
    expect(reply.content).toBe('');
  });

  test('JSON output with tools offered: the model may call a tool instead of answering', async () => {
    const reply = await managedChat().chat({
      target: HAIKU,
      messages: ask('Weather in Paris?'),
      tools: [weather],
      outputFormat: { type: 'json_object' },
    });
    expect(reply.toolCalls?.map((c) => c.name)).toEqual(['get_weather']);
    expect(reply.finishReason).toBe('tool_calls');
  });
});

describe('faults on tool calls', () => {
  test.each([
    ['managed', 'ConverseStream'],
    ['dedicated', 'InvokeEndpointWithResponseStream'],
    ['hosted', 'chat.completions'],
  ] as const)('%s: a failure in the middle of a streamed tool call is an UpstreamError from the stream', async (platform, op) => {
    const { chat, target } = adapters[platform];
    await control(emulator.url, 'POST', '/faults', { target: op, model: target, fault: 'midstream', count: 1 });
    const err = await rejection(collect(chat.chatStream({ target, messages: ask('Weather in Paris?'), tools: [weather] })));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/failed while answering$/);
  });
});
