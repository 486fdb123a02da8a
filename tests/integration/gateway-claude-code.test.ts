/**
 * What Claude Code and other agents send beyond chat, with the official clients (their requests answered
 * by the handlers in process, Bedrock by the emulator): documents on /v1/messages, which reach Converse
 * as document blocks the emulator checks as Bedrock does.
 */
import Anthropic from '@anthropic-ai/sdk';
import { jest } from '@jest/globals';
import OpenAI from 'openai';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as embeddings } from '../../functions/gateway/embeddings';
import { handler as responses } from '../../functions/gateway/responses';
import { handler as currentUsage } from '../../functions/usage/current';
import { pendingCallsOf } from '../../tables/calls';
import { settlePendingCalls } from '../../tables/writes/calls';
import { handler as createKey } from '../../functions/keys/create';
import { handler as messages } from '../../functions/gateway/messages';
import type { Resource } from '../../tables/resources';
import { inProcessFetch } from '../helpers/in-process-fetch';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, putResource } from './chat-fixtures';

jest.setTimeout(60_000);

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const GPT_OSS = 'openai.gpt-oss-120b-1:0';
const TITAN_EMBED = 'amazon.titan-embed-text-v2:0';

/** A one-page PDF: the smallest file a PDF reader opens. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
).toString('base64');

let sonnet: Resource;
let gptOss: Resource;
let titan: Resource;
let client: Anthropic;
let openai: OpenAI;
let key: string;
let owner: Awaited<ReturnType<typeof makeUser>>;
let fetch: typeof globalThis.fetch;

beforeAll(async () => {
  [sonnet, gptOss, titan] = await Promise.all([
    listed(putResource({ type: 'managed', model_id: SONNET, model_name: SONNET })),
    listed(putResource({ type: 'managed', model_id: GPT_OSS, model_name: GPT_OSS })),
    listed(putResource({ type: 'managed', model_id: TITAN_EMBED, model_name: TITAN_EMBED })),
  ]);
  owner = await makeUser('user');
  key = (await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'claude-code' } })).body.key as string;
  fetch = inProcessFetch({
    'POST /v1/messages': messages as Handler,
    'POST /v1/chat/completions': completions as Handler,
    'POST /v1/embeddings': embeddings as Handler,
    'POST /v1/responses': responses as Handler,
  });
  client = new Anthropic({ apiKey: key, baseURL: 'http://gateway.test', fetch, maxRetries: 0 });
  openai = new OpenAI({ apiKey: key, baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 });
});

const pdf = (title?: string): Anthropic.DocumentBlockParam => ({
  type: 'document',
  source: { type: 'base64', media_type: 'application/pdf', data: PDF },
  ...(title !== undefined && { title }),
});
const text = (data: string, title?: string): Anthropic.DocumentBlockParam => ({
  type: 'document',
  source: { type: 'text', media_type: 'text/plain', data },
  ...(title !== undefined && { title }),
});

const withDocuments = (model: string, documents: Anthropic.DocumentBlockParam[]) =>
  client.messages.create({
    model,
    max_tokens: 256,
    messages: [{ role: 'user', content: [...documents, { type: 'text', text: 'Summarise these.' }] }],
  });

/** What the messages route answers a body, with its status (for the refusals the SDK would throw). */
const post = (body: Record<string, unknown>) => call(messages as Handler, { method: 'POST', headers: { 'x-api-key': key }, body });

describe('documents on /v1/messages', () => {
  test('a PDF and a text document reach the model as document blocks and count among the input tokens', async () => {
    const answer = await withDocuments(sonnet.endpoint_name, [pdf('Q3 report'), text('Revenue grew 12 %.', 'notes')]);
    const reply = (answer.content[0] as Anthropic.TextBlock).text;
    // The emulator counts a PDF page at 1,500 tokens and a text at 4 characters a token.
    expect(reply).toContain('2 documents received (1505 tokens)');
    expect(answer.usage.input_tokens).toBeGreaterThan(1505);
  });

  test('titles Converse would refuse as names are made to fit its rule, and repeated names made unique', async () => {
    // ':' '/' '.' and double spaces are not allowed in a Converse document name; two documents may not share one.
    const answer = await withDocuments(sonnet.endpoint_name, [pdf('Q3: final/v2.pdf'), pdf('Q3: final/v2.pdf'), text('x'), text('y', '')]);
    expect((answer.content[0] as Anthropic.TextBlock).text).toContain('4 documents received');
  });

  test('a model that does not read documents refuses them with 400 model_not_capable, in Anthropic shape', async () => {
    const refused = await withDocuments(gptOss.endpoint_name, [pdf()]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('does not read documents') },
    });
  });

  test.each([
    ['six documents', [1, 2, 3, 4, 5, 6].map((n) => text(`page ${n}`)), /at most 5 documents/],
    ['bytes that are not a PDF', [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'aGVsbG8=' } }], /not a PDF/],
    ['text that is not UTF-8', [{ type: 'document', source: { type: 'base64', media_type: 'text/plain', data: '/w==' } }], /UTF-8/],
    ['a document URL', [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }], /not fetched/],
    ['a media type other than PDF or text', [{ type: 'document', source: { type: 'base64', media_type: 'text/html', data: 'aGk=' } }], /media_type/],
  ])('%s is a 400 in Anthropic shape, before the model is asked', async (_, documents, message) => {
    const res = await post({
      model: sonnet.endpoint_name,
      max_tokens: 64,
      messages: [{ role: 'user', content: [...documents, { type: 'text', text: 'Read.' }] }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(message) } });
  });

  test("OpenAI's file parts on chat completions reach the model as documents too", async () => {
    const answer = await openai.chat.completions.create({
      model: sonnet.endpoint_name,
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'report.pdf' } },
            { type: 'text', text: 'Summarise it.' },
          ],
        },
      ],
    });
    expect(answer.choices[0]?.message.content).toContain('1 document received (1500 tokens)');
    const refused = await openai.chat.completions
      .create({ model: sonnet.endpoint_name, messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages.0.content.0.file.file_id');
  });
});

describe('sessions and end users', () => {
  const usageOf = async (session: string) => {
    const res = await call(currentUsage as Handler, { method: 'GET', token: owner.token, query: { session } });
    expect(res.status).toBe(200);
    return res.body as { scope: string; session: string; mtd: { requests: number; tokens_in: number } };
  };

  test("Claude Code's session header and metadata.user_id are recorded with each call, and usage reads by session", async () => {
    const session = `sess-${crypto.randomUUID()}`;
    const claudeCode = new Anthropic({
      apiKey: key,
      baseURL: 'http://gateway.test',
      fetch,
      maxRetries: 0,
      defaultHeaders: { 'X-Claude-Code-Session-Id': session },
    });
    for (const text of ['First', 'Second']) {
      await claudeCode.messages.create({
        model: sonnet.endpoint_name,
        max_tokens: 64,
        metadata: { user_id: 'dev-42' },
        messages: [{ role: 'user', content: text }],
      });
    }
    const recorded = (await pendingCallsOf(owner.user.id)).filter((c) => c.session === session);
    expect(recorded.map((c) => c.endUser)).toEqual(['dev-42', 'dev-42']);

    // Read at once (the caller's calls not settled yet count), and again once the stream settled them.
    expect(await usageOf(session)).toMatchObject({ scope: 'session', session, mtd: { requests: 2 } });
    await settlePendingCalls(recorded);
    expect((await usageOf(session)).mtd).toMatchObject({ requests: 2, tokens_in: recorded[0]!.tokensIn + recorded[1]!.tokensIn });
    expect((await usageOf(`other-${session}`)).mtd.requests).toBe(0);
  });

  test("OpenAI's user on chat completions and embeddings is recorded with the call", async () => {
    const user = `alice-${crypto.randomUUID()}`;
    await openai.chat.completions.create({ model: sonnet.endpoint_name, max_tokens: 16, user, messages: [{ role: 'user', content: 'Hi' }] });
    await openai.embeddings.create({ model: titan.endpoint_name, input: 'Hi', user });
    const calls = (await pendingCallsOf(owner.user.id)).filter((c) => c.endUser === user);
    expect(calls.map((c) => c.resource.id).sort()).toEqual([sonnet.id, titan.id].sort());
  });

  test.each([
    ['a session id with a control character', { 'x-claude-code-session-id': 'abc\u0007' }, {}, /x-claude-code-session-id/],
    ['a session id of 257 characters', { 'x-claude-code-session-id': 's'.repeat(257) }, {}, /x-claude-code-session-id/],
    ['a metadata.user_id with a newline', {}, { metadata: { user_id: 'dev\n42' } }, /metadata.user_id/],
  ])('%s is a 400 in Anthropic shape, and nothing is recorded', async (_, headers, extra, message) => {
    const before = (await pendingCallsOf(owner.user.id)).length;
    const res = await call(messages as Handler, {
      method: 'POST',
      headers: { 'x-api-key': key, ...headers },
      body: { model: sonnet.endpoint_name, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], ...extra },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(message) } });
    expect((await pendingCallsOf(owner.user.id)).length).toBe(before);
  });

  test("an OpenAI user with a control character is a 400 in OpenAI's shape naming the field", async () => {
    const refused = await openai.chat.completions
      .create({ model: sonnet.endpoint_name, user: 'bob\u0000', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('user');
  });
});

describe('service_tier on /v1/messages', () => {
  const hi = (model: string, service_tier?: 'auto' | 'standard_only') =>
    post({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], ...(service_tier && { service_tier }) });

  test('standard_only is served by Standard, and the answer says which tier served', async () => {
    const res = await hi(gptOss.endpoint_name, 'standard_only');
    expect(res.status).toBe(200);
    expect(res.body.usage.service_tier).toBe('standard');
  });

  test("auto leaves the tier to the key: a flex-only key's call runs on Flex; standard_only is refused it with 403", async () => {
    const flexKey = (
      await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'batch', allowed_service_tiers: ['flex'] } })
    ).body.key as string;
    const flexCall = (service_tier: 'auto' | 'standard_only') =>
      call(messages as Handler, {
        method: 'POST',
        headers: { 'x-api-key': flexKey },
        body: { model: gptOss.endpoint_name, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], service_tier },
      });
    const auto = await flexCall('auto');
    expect(auto.status).toBe(200);
    expect(auto.body.usage.service_tier).toBe('flex');
    const refused = await flexCall('standard_only');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      type: 'error',
      error: { type: 'permission_error', message: expect.stringContaining('default service tier') },
    });
  });
});

describe('streamed reasoning on /v1/responses', () => {
  test("the reasoning streams as a reasoning item's reasoning_text deltas before the message, as the SDK rebuilds it", async () => {
    const stream = openai.responses.stream({
      model: sonnet.endpoint_name,
      reasoning: { effort: 'low' },
      input: 'Why is the sky blue?',
      store: false,
    });
    const types: string[] = [];
    let deltas = '';
    stream.on('event', (event) => types.push(event.type));
    stream.on('response.reasoning_text.delta', (event) => (deltas += event.delta));
    const response = await stream.finalResponse();

    const [reasoning, message] = response.output;
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      content: [{ type: 'reasoning_text', text: expect.stringContaining('Why is the sky blue?') }],
    });
    const text = (reasoning as { content: { text: string }[] }).content[0]!.text;
    expect(deltas).toBe(text);
    expect(types.filter((t) => t === 'response.reasoning_text.delta').length).toBeGreaterThan(1);
    expect(message).toMatchObject({ type: 'message', status: 'completed' });
    // The reasoning item is done before the message begins.
    expect(types.indexOf('response.reasoning_text.done')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(Math.ceil(text.length / 4));
  });
});

describe('fine-grained tool streaming', () => {
  const WEATHER: Anthropic.Tool = {
    name: 'get_weather',
    description: 'The weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city', 'unit'] },
  };

  test('a tool call streams its input as several input_json_delta events as Converse sends them, with the beta passed to Bedrock', async () => {
    const stream = client.beta.messages.stream({
      model: sonnet.endpoint_name,
      max_tokens: 256,
      betas: ['fine-grained-tool-streaming-2025-05-14'],
      tools: [WEATHER],
      tool_choice: { type: 'tool', name: 'get_weather' },
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    const pieces: string[] = [];
    stream.on('inputJson', (partial) => pieces.push(partial));
    const { response } = await stream.withResponse();
    const message = await stream.finalMessage();
    // The emulator refuses a beta Claude does not take on Bedrock; none was dropped on the way.
    expect(response.headers.get('x-model-ops-betas-dropped')).toBeNull();
    const use = message.content.find((b) => b.type === 'tool_use') as Anthropic.Beta.BetaToolUseBlock;
    expect(pieces.length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(''))).toEqual(use.input);
  });

  test('on chat completions a tool call streams its arguments in several deltas', async () => {
    const stream = await openai.chat.completions.create({
      model: sonnet.endpoint_name,
      stream: true,
      tools: [{ type: 'function', function: { name: WEATHER.name, parameters: WEATHER.input_schema } }],
      tool_choice: { type: 'function', function: { name: WEATHER.name } },
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    const pieces: string[] = [];
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) if (call.function?.arguments) pieces.push(call.function.arguments);
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(''))).toMatchObject({ city: expect.any(String) });
  });
});
