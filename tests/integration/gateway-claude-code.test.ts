/**
 * What Claude Code and other agents send beyond chat, with the official clients (their requests answered
 * by the handlers in process, Bedrock by the emulator): documents on /v1/messages, which reach Converse
 * as document blocks the emulator checks as Bedrock does.
 */
import Anthropic from '@anthropic-ai/sdk';
import { jest } from '@jest/globals';
import OpenAI from 'openai';
import { handler as completions } from '../../functions/gateway/completions';
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

/** A one-page PDF: the smallest file a PDF reader opens. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
).toString('base64');

let sonnet: Resource;
let gptOss: Resource;
let client: Anthropic;
let openai: OpenAI;
let key: string;

beforeAll(async () => {
  [sonnet, gptOss] = await Promise.all([
    listed(putResource({ type: 'managed', model_id: SONNET, model_name: SONNET })),
    listed(putResource({ type: 'managed', model_id: GPT_OSS, model_name: GPT_OSS })),
  ]);
  const owner = await makeUser('user');
  key = (await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'claude-code' } })).body.key as string;
  const fetch = inProcessFetch({ 'POST /v1/messages': messages as Handler, 'POST /v1/chat/completions': completions as Handler });
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
