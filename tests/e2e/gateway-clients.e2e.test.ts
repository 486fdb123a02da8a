/**
 * The gateway beyond plain chat as real applications drive it: the official `openai` package, the
 * Vercel AI SDK (`ai` with `@ai-sdk/openai`, its default Responses provider and `.chat`), LangChain's
 * `@langchain/openai` and `@anthropic-ai/sdk`, over HTTP through the local front door (serverless-offline
 * and the streaming function URL, as `npm start` runs them), on resources deployed through the API.
 * Each feature is driven through each client that has it, with a two-step tool loop (call, result,
 * answer) on every platform that supports tools.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { embed, generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { http, loginAsAdmin } from './http';

const suffix = Math.random().toString(36).slice(2, 8);
const names = {
  managed: `cl-managed-${suffix}`,
  hosted: `cl-hosted-${suffix}`,
  dedicated: `cl-dedicated-${suffix}`,
  titan: `cl-titan-${suffix}`,
  embed: `cl-embed-${suffix}`,
};
const TGI_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-py310-cu121-ubuntu22.04';

const door = () => process.env.E2E_FRONT_DOOR_URL as string;
let apiKey: string;
let keyId: string;
let openai: OpenAI;

const weatherSchema = z.object({ city: z.string() });
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

beforeAll(async () => {
  const admin = await loginAsAdmin();
  const deploys = await Promise.all([
    http('POST', '/api/deploy/managed', {
      token: admin,
      body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: names.managed, dryRun: false },
    }),
    http('POST', '/api/deploy/hosted', { token: admin, body: { modelId: 'meta/llama-3.1-8b-instruct', endpointName: names.hosted, dryRun: false } }),
    http('POST', '/api/deploy/managed', {
      token: admin,
      body: { modelId: 'amazon.titan-embed-text-v2:0', endpointName: names.titan, dryRun: false },
    }),
    http('POST', '/api/deploy/hosted', { token: admin, body: { modelId: 'baai/bge-m3', endpointName: names.embed, dryRun: false } }),
    http('POST', '/api/deploy/dedicated', {
      token: admin,
      body: { endpointName: names.dedicated, inferenceImage: TGI_IMAGE, instanceType: 'ml.g5.xlarge', instanceCount: 1, dryRun: false },
    }),
  ]);
  expect(deploys.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
  // The dedicated endpoint is Creating until the emulator has it in service.
  for (let i = 0; i < 100; i++) {
    const status = await http('GET', `/api/resources/${deploys[4].body.id as string}/status`, { token: admin });
    if (status.body?.resource?.status === 'InService') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const key = await http('POST', '/api/keys', { token: admin, body: { name: `clients-${suffix}` } });
  expect(key.status).toBe(201);
  apiKey = key.body.key as string;
  keyId = key.body.id as string;
  openai = new OpenAI({ baseURL: `${door()}/v1`, apiKey, maxRetries: 0, timeout: 30_000 });
}, 120_000);

describe('openai', () => {
  test.each(['managed', 'hosted', 'dedicated'] as const)('runs a two-step tool loop on the %s platform', async (platform) => {
    const model = names[platform];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Oslo?' }];
    const first = await openai.chat.completions.create({ model, messages, tools: [WEATHER_TOOL], tool_choice: 'auto' });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(weatherSchema.parse(JSON.parse(call.function.arguments))).toEqual({ city: expect.any(String) });
    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 degrees' });
    const second = await openai.chat.completions.create({ model, messages, tools: [WEATHER_TOOL] });
    expect(second.choices[0]!.message.content).toContain('Sunny, 21 degrees');
  });

  test('streams tool-call deltas that the SDK assembles into the call', async () => {
    const stream = openai.chat.completions.stream({
      model: names.managed,
      messages: [{ role: 'user', content: 'What is the weather in Oslo?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
  });

  test.each(['managed', 'hosted'] as const)('parses structured output with a zod schema on the %s platform', async (platform) => {
    const Person = z.object({ name: z.string(), age: z.number().int() });
    const completion = await openai.chat.completions.parse({
      model: names[platform],
      messages: [{ role: 'user', content: 'Who is Ada Lovelace?' }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(Person.parse(completion.choices[0]!.message.parsed)).toEqual({ name: expect.any(String), age: expect.any(Number) });
  });

  test('embeds texts (the SDK asks for base64 and decodes it)', async () => {
    const res = await openai.embeddings.create({ model: names.titan, input: ['one', 'two'], dimensions: 256 });
    expect(res.data.map((d) => d.embedding.length)).toEqual([256, 256]);
    expect(res.usage.prompt_tokens).toBeGreaterThan(0);
  });

  test('answers through the Responses API, in one piece and streamed', async () => {
    const response = await openai.responses.create({ model: names.managed, input: 'Say hello', instructions: 'Be brief', max_output_tokens: 50 });
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    const stream = openai.responses.stream({ model: names.hosted, input: 'Say hello' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe(final.output_text);
  });

  test('a streamed request for what the model cannot do is refused by the streaming function before any chunk', async () => {
    const err = await openai.chat.completions
      .create({ model: names.titan, messages: [{ role: 'user', content: 'Hi' }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ param: 'model', code: 'model_not_capable' });
  });

  test('a model that cannot embed is the SDK’s BadRequestError with param model', async () => {
    const err = await openai.embeddings.create({ model: names.managed, input: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('model');
  });
});

describe('Vercel AI SDK', () => {
  const provider = () => createOpenAI({ baseURL: `${door()}/v1`, apiKey });
  const weather = tool({
    description: 'The weather in a city',
    inputSchema: weatherSchema,
    execute: async ({ city }) => `Cloudy in ${city}, 12 degrees`,
  });

  test.each(['managed', 'hosted', 'dedicated'] as const)(
    'generateText runs a tool loop on the %s platform through the Responses API (the default provider)',
    async (platform) => {
      const result = await generateText({
        model: provider()(names[platform]),
        tools: { get_weather: weather },
        stopWhen: stepCountIs(3),
        prompt: 'What is the weather in Oslo?',
        // Nothing is stored here, so earlier items go back whole rather than as references.
        providerOptions: { openai: { store: false } },
      });
      expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'get_weather' });
      expect(result.text).toContain('12 degrees');
    },
  );

  test('generateText runs a tool loop through chat completions (.chat)', async () => {
    const result = await generateText({
      model: provider().chat(names.managed),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      prompt: 'What is the weather in Oslo?',
    });
    expect(result.text).toContain('12 degrees');
  });

  test.each([
    ['the Responses API', (p: ReturnType<typeof provider>) => p(names.hosted)],
    ['chat completions', (p: ReturnType<typeof provider>) => p.chat(names.hosted)],
  ])('streamText streams through %s', async (_api, model) => {
    const result = streamText({ model: model(provider()), prompt: 'Say hello there', providerOptions: { openai: { store: false } } });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toContain('hello there');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  test('embed returns a vector', async () => {
    const { embedding } = await embed({ model: provider().embedding(names.embed), value: 'a text' });
    expect(embedding.length).toBeGreaterThan(0);
  });
});

describe('LangChain', () => {
  const chat = (model: string) => new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${door()}/v1` }, maxRetries: 0 });

  test('bindTools: the model calls the tool, and answers from its result', async () => {
    const model = chat(names.hosted).bindTools([WEATHER_TOOL]);
    const first = await model.invoke([{ role: 'user', content: 'What is the weather in Oslo?' }]);
    const call = first.tool_calls![0]!;
    expect(call).toMatchObject({ name: 'get_weather', args: { city: expect.any(String) } });
    const second = await model.invoke([
      { role: 'user', content: 'What is the weather in Oslo?' },
      first,
      { role: 'tool', tool_call_id: call.id!, content: 'Windy, 7 degrees' },
    ]);
    expect(second.content).toContain('Windy, 7 degrees');
  });

  test('withStructuredOutput returns an object of the zod schema', async () => {
    const City = z.object({ name: z.string(), population: z.number() });
    const result = await chat(names.managed).withStructuredOutput(City).invoke('Describe Oslo');
    expect(City.parse(result)).toEqual({ name: expect.any(String), population: expect.any(Number) });
  });

  test('OpenAIEmbeddings embeds documents and a query', async () => {
    const embeddings = new OpenAIEmbeddings({ model: names.titan, apiKey, configuration: { baseURL: `${door()}/v1` }, maxRetries: 0 });
    const docs = await embeddings.embedDocuments(['first', 'second']);
    expect(docs).toHaveLength(2);
    expect((await embeddings.embedQuery('third')).length).toBe(docs[0]!.length);
  });
});

describe('Anthropic SDK', () => {
  const anthropic = () => new Anthropic({ apiKey, baseURL: door(), maxRetries: 0 });
  const tools: Anthropic.Tool[] = [
    {
      name: 'get_weather',
      description: 'The weather in a city',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];

  test('messages.create answers, the key sent as x-api-key', async () => {
    const message = await anthropic().messages.create({
      model: names.managed,
      max_tokens: 50,
      system: 'Be brief',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Hello there') });
  });

  test('messages.stream delivers the text and the final message with its usage', async () => {
    const stream = anthropic().messages.stream({ model: names.hosted, max_tokens: 50, messages: [{ role: 'user', content: 'Hello there' }] });
    let text = '';
    stream.on('text', (piece) => (text += piece));
    const final = await stream.finalMessage();
    expect(text).toBe((final.content[0] as Anthropic.TextBlock).text);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  test('a tool_use, its tool_result, then the answer', async () => {
    const client = anthropic();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Oslo?' }];
    const first = await client.messages.create({ model: names.managed, max_tokens: 200, tools, messages });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Hail, 2 degrees' }] },
    );
    const second = await client.messages.create({ model: names.managed, max_tokens: 200, tools, messages });
    expect((second.content[0] as Anthropic.TextBlock).text).toContain('Hail, 2 degrees');
  });

  test('an unknown model is the SDK’s NotFoundError of type not_found_error', async () => {
    const err = await anthropic()
      .messages.create({ model: `no-such-${suffix}`, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});

test('every call above is counted on the key, and its spend is what the table holds', async () => {
  const admin = await loginAsAdmin();
  const usage = await http('GET', `/api/usage/current?keyId=${keyId}`, { token: admin });
  expect(usage.status).toBe(200);
  expect(usage.body.mtd.requests).toBeGreaterThan(20);
  expect(usage.body.mtd.cost_usd).toBeGreaterThan(0);
});
