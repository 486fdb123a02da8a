/**
 * The one envelope rule (lib/http/envelope.ts, applied by lib/http/stack.ts): handlers and lib return
 * data; the stack wraps it in `{success: true, ...}` on the spec's routes and sends a dialect's body
 * (OpenAI's, Anthropic's, Bedrock's) as it is.
 */
import { redirect, reply } from '../../lib/http/endpoint';
import { publicEndpoint } from '../../lib/http/public-endpoint';
import { call, type Handler } from '../helpers/invoke';

const data = { team: { id: 't1', name: 'Research' }, nextCursor: null };

describe('the response envelope', () => {
  test.each(['standard', 'message', 'thread'] as const)(
    'a route in the spec’s %s shape answers its data as {success: true, ...data}',
    async (shape) => {
      const handler = publicEndpoint({ errorShape: shape }, async () => data) as Handler;
      const res = await call(handler);
      expect(res.status).toBe(200);
      expect(res.raw).toBe(JSON.stringify({ success: true, ...data }));
    },
  );

  test('a reply with another status and headers is wrapped the same way and keeps its status and headers', async () => {
    const handler = publicEndpoint({}, async () => reply(201, data, { 'X-Origin': 'cache' })) as Handler;
    const res = await call(handler);
    expect(res).toMatchObject({ status: 201, headers: { 'X-Origin': 'cache' }, body: { success: true, ...data } });
  });

  test('an answer with nothing to report is {success: true}', async () => {
    const res = await call(publicEndpoint({}, async () => ({})) as Handler);
    expect(res.body).toEqual({ success: true });
  });

  test.each(['openai', 'anthropic', 'bedrock'] as const)('a %s dialect route sends its body exactly as the handler returns it', async (shape) => {
    const body = { id: 'chatcmpl-1', object: 'chat.completion', choices: [] };
    const res = await call(publicEndpoint({ errorShape: shape }, async () => body) as Handler);
    expect(res.raw).toBe(JSON.stringify(body));
  });

  test('a bare route (the OpenAPI document) is sent as it is', async () => {
    const document = { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: {} };
    const res = await call(publicEndpoint({ bare: true }, async () => document) as Handler);
    expect(res.raw).toBe(JSON.stringify(document));
  });

  test('a redirect keeps no body', async () => {
    const res = await call(publicEndpoint({}, async () => redirect('https://idp.example/authorize')) as Handler);
    expect(res.status).toBe(302);
    expect(res.headers.Location).toBe('https://idp.example/authorize');
    expect(res.raw).toBe('');
  });
});
