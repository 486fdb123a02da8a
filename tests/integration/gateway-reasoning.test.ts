/**
 * Reasoning through /v1/messages with the official Anthropic SDK (its requests answered by the
 * handler in process): Claude's thinking on Bedrock (Converse's reasoning configuration and
 * reasoningContent blocks, as the emulator answers them), streamed and not, sent back intact in a tool
 * loop, redacted, interleaved under its beta; betas filtered to what the model takes on Bedrock; top_k;
 * and the budget hold that counts the thinking budget. And OpenAI's reasoning_effort on chat
 * completions, with the official OpenAI SDK: reasoning_content and reasoning tokens.
 */
import Anthropic from '@anthropic-ai/sdk';
import { jest } from '@jest/globals';
import OpenAI from 'openai';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as responses } from '../../functions/gateway/responses';
import { handler as createKey } from '../../functions/keys/create';
import { handler as messages } from '../../functions/gateway/messages';
import type { Resource } from '../../tables/resources';
import { inProcessFetch } from '../helpers/in-process-fetch';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, MANAGED_MODEL, putResource } from './chat-fixtures';

jest.setTimeout(60_000);

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const REDACTED_TRIGGER = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253';
const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const THINKING = { type: 'enabled', budget_tokens: 1024 } as const;
/** Anthropic's top_k, which this SDK version's request types no longer declare (the API still takes it). */
const TOP_K = { top_k: 40 } as object;

let sonnet: Resource;
let haiku3: Resource;
let client: Anthropic;
let key: string;

const clientFor = (apiKey: string) =>
  new Anthropic({ apiKey, baseURL: 'http://gateway.test', fetch: inProcessFetch({ 'POST /v1/messages': messages as Handler }), maxRetries: 0 });

async function newKey(body: Record<string, unknown> = {}) {
  const owner = await makeUser('user');
  const res = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'k', ...body } });
  return res.body.key as string;
}

beforeAll(async () => {
  [sonnet, haiku3] = await Promise.all([
    listed(putResource({ type: 'managed', model_id: SONNET, model_name: SONNET })),
    listed(putResource({ type: 'managed', model_id: MANAGED_MODEL, model_name: MANAGED_MODEL })),
  ]);
  key = await newKey();
  client = clientFor(key);
});

const ask = (text: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) =>
  client.messages.create({
    model: sonnet.endpoint_name,
    max_tokens: 2048,
    thinking: THINKING,
    messages: [{ role: 'user', content: text }],
    ...extra,
  });

describe('thinking on /v1/messages', () => {
  test('an answer starts with a signed thinking block, and its reasoning counts among the output tokens', async () => {
    const answer = await ask('Why is the sky blue?');
    const [thinking, text] = answer.content;
    expect(thinking).toMatchObject({ type: 'thinking', thinking: expect.stringContaining('Why is the sky blue?'), signature: expect.any(String) });
    expect((thinking as Anthropic.ThinkingBlock).signature.length).toBeGreaterThan(10);
    expect(text?.type).toBe('text');
    const thinkingTokens = Math.ceil((thinking as Anthropic.ThinkingBlock).thinking.length / 4);
    const textTokens = Math.ceil((text as Anthropic.TextBlock).text.length / 4);
    expect(answer.usage.output_tokens).toBe(thinkingTokens + textTokens);
  });

  test('streamed, thinking arrives as a thinking block of thinking_delta and signature_delta events, before the text', async () => {
    const stream = client.messages.stream({
      model: sonnet.endpoint_name,
      max_tokens: 2048,
      thinking: THINKING,
      messages: [{ role: 'user', content: 'Count to three' }],
    });
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const message = await stream.finalMessage();
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ thinking: expect.stringContaining('Count to three'), signature: expect.any(String) });
    expect(deltas.indexOf('signature_delta')).toBeGreaterThan(deltas.indexOf('thinking_delta'));
    expect(deltas.indexOf('text_delta')).toBeGreaterThan(deltas.indexOf('signature_delta'));
  });

  test('a tool loop sends the thinking back, and it reaches the model intact (a changed one is refused)', async () => {
    const first = await ask('What is the weather in Oslo?', { tools: [WEATHER] });
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    const loop = (content: Anthropic.ContentBlockParam[]) =>
      ask('', {
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'What is the weather in Oslo?' },
          { role: 'assistant', content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 C' }] },
        ],
      });
    const second = await loop(first.content);
    const text = second.content.find((b) => b.type === 'text') as Anthropic.TextBlock;
    expect(text.text).toContain('Sunny, 21 C');
    expect(text.text).toContain('1 reasoning block(s) received');
    // Without the interleaved beta Claude does not think again after tool results.
    expect(second.content.some((b) => b.type === 'thinking')).toBe(false);

    const changed = first.content.map((b) => (b.type === 'thinking' ? { ...b, thinking: `${b.thinking} (edited)` } : b));
    const refused = await loop(changed as Anthropic.ContentBlockParam[]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String(refused)).toMatch(/Invalid `signature` in `thinking` block/);
  });

  test('with the interleaved-thinking beta the model thinks again after tool results, and the budget may pass max_tokens', async () => {
    const first = await ask('What is the weather in Oslo?', { tools: [WEATHER] });
    const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    const second = await client.beta.messages.create({
      model: sonnet.endpoint_name,
      max_tokens: 1500,
      thinking: { type: 'enabled', budget_tokens: 4000 },
      betas: ['interleaved-thinking-2025-05-14'],
      tools: [WEATHER],
      messages: [
        { role: 'user', content: 'What is the weather in Oslo?' },
        { role: 'assistant', content: first.content as Anthropic.Beta.BetaContentBlockParam[] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Rain' }] },
      ],
    });
    expect(second.content[0]).toMatchObject({ type: 'thinking', thinking: expect.stringContaining('tool results') });
  });

  test('redacted thinking comes back as redacted_thinking, and goes back to the model as it came', async () => {
    const first = await ask(`Think about ${REDACTED_TRIGGER}`);
    expect(first.content[0]).toMatchObject({ type: 'redacted_thinking', data: expect.any(String) });
    const second = await ask('', {
      messages: [
        { role: 'user', content: `Think about ${REDACTED_TRIGGER}` },
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: 'And then?' },
      ],
    });
    expect((second.content.find((b) => b.type === 'text') as Anthropic.TextBlock).text).toContain('1 reasoning block(s) received');
  });

  test('a model that cannot reason refuses thinking with 400 model_not_capable, in Anthropic shape', async () => {
    const refused = await client.messages
      .create({ model: haiku3.endpoint_name, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('does not reason') },
    });
  });

  test.each([
    ['a budget under 1024', { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 500 } }, /budget_tokens/],
    ['a budget not under max_tokens', { max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 } }, /max_tokens/],
    ['a temperature other than 1', { max_tokens: 2048, thinking: THINKING, temperature: 0.5 }, /temperature/],
  ])('thinking with %s is a 400 naming the field', async (_, extra, message) => {
    const res = await call(messages as Handler, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: { model: sonnet.endpoint_name, messages: [{ role: 'user', content: 'Hi' }], ...extra },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  test('the hold counts the thinking budget beside max_tokens: a budget that covers the answer alone refuses the thinking call', async () => {
    // Sonnet 4.5 through a US profile: $0.0165 per 1k output tokens. 2,000 tokens cost $0.033; with a
    // thinking budget of 1,500 on top, 3,500 cost $0.05775.
    const tight = clientFor(await newKey({ monthly_budget_usd: 0.04 }));
    const plain = await tight.messages.create({ model: sonnet.endpoint_name, max_tokens: 2000, messages: [{ role: 'user', content: 'Hi' }] });
    expect(plain.type).toBe('message');
    await expect(
      tight.messages.create({
        model: sonnet.endpoint_name,
        max_tokens: 2000,
        thinking: { type: 'enabled', budget_tokens: 1500 },
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.RateLimitError);
  });
});

describe('betas and top_k on /v1/messages', () => {
  test('betas the model takes on Bedrock pass; the others are dropped and named in a response header', async () => {
    const { data, response } = await client.beta.messages
      .create({
        model: sonnet.endpoint_name,
        max_tokens: 256,
        betas: ['fine-grained-tool-streaming-2025-05-14', 'files-api-2025-04-14', 'claude-code-20250219'],
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .withResponse();
    expect(data.type).toBe('message');
    expect(response.headers.get('x-model-ops-betas-dropped')).toBe('files-api-2025-04-14,claude-code-20250219');
  });

  test('top_k samples on Claude; a model without it refuses it with 400 naming top_k, and so does thinking', async () => {
    const answer = await client.messages.create({
      model: sonnet.endpoint_name,
      max_tokens: 256,
      ...TOP_K,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(answer.content[0]?.type).toBe('text');
    const nova = await listed(putResource({ type: 'managed', model_id: 'amazon.nova-lite-v1:0', model_name: 'nova' }));
    await expect(
      client.messages.create({ model: nova.endpoint_name, max_tokens: 256, ...TOP_K, messages: [{ role: 'user', content: 'Hi' }] }),
    ).rejects.toThrow(/top_k/);
    await expect(ask('Hi', TOP_K)).rejects.toThrow(/top_k/);
  });
});

describe('reasoning through OpenAI chat completions', () => {
  const openai = () =>
    new OpenAI({
      apiKey: key,
      baseURL: 'http://gateway.test/v1',
      fetch: inProcessFetch({ 'POST /v1/chat/completions': completions as Handler }),
      maxRetries: 0,
    });

  test('reasoning_effort reasons: the reasoning is reasoning_content, its tokens counted as reasoning among the completion tokens', async () => {
    const completion = await openai().chat.completions.create({
      model: sonnet.endpoint_name,
      max_completion_tokens: 8000,
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
    });
    const message = completion.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.reasoning_content).toContain('Why is the sky blue?');
    const reasoningTokens = Math.ceil((message.reasoning_content as string).length / 4);
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(reasoningTokens);
    expect(completion.usage?.completion_tokens).toBe(reasoningTokens + Math.ceil(message.content.length / 4));
  });

  test('streamed, the reasoning arrives as reasoning_content deltas before the content', async () => {
    const stream = await openai().chat.completions.create({
      model: sonnet.endpoint_name,
      reasoning_effort: 'medium',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Count to three' }],
    });
    const kinds: string[] = [];
    let reasoning = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) {
        kinds.push('reasoning');
        reasoning += delta.reasoning_content;
      }
      if (delta?.content) kinds.push('content');
      usage ??= chunk.usage;
    }
    expect(reasoning).toContain('Count to three');
    expect(kinds.lastIndexOf('reasoning')).toBeLessThan(kinds.indexOf('content'));
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(Math.ceil(reasoning.length / 4));
  });

  test('a model that cannot reason refuses reasoning_effort with 400 model_not_capable naming it', async () => {
    const refused = await openai()
      .chat.completions.create({ model: haiku3.endpoint_name, reasoning_effort: 'high', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ code: 'model_not_capable', param: 'reasoning_effort' });
  });

  test('the Responses API reasoning.effort reasons: a reasoning item before the message, its tokens reported', async () => {
    const client = new OpenAI({
      apiKey: key,
      baseURL: 'http://gateway.test/v1',
      fetch: inProcessFetch({ 'POST /v1/responses': responses as Handler }),
      maxRetries: 0,
    });
    const response = await client.responses.create({ model: sonnet.endpoint_name, reasoning: { effort: 'low' }, input: 'Why is the sky blue?' });
    const [reasoning, message] = response.output;
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      content: [{ type: 'reasoning_text', text: expect.stringContaining('Why is the sky blue?') }],
    });
    expect(message?.type).toBe('message');
    expect(response.reasoning).toMatchObject({ effort: 'low' });
    const text = (reasoning as { content: { text: string }[] }).content[0]?.text as string;
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(Math.ceil(text.length / 4));
  });
});
