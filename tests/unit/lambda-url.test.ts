/**
 * The local function URL (local/lambda-url.ts) against the response-streaming contract of Lambda's
 * Node.js runtime: the metadata prelude becomes the status and headers, the body passes through as
 * it is written, a failure before the first byte is the function URL's 502, and a client that hangs
 * up destroys the handler's stream.
 */
import { jest } from '@jest/globals';
import { pipeline } from 'node:stream/promises';
import { Readable, type Writable } from 'node:stream';
import { installAwsLambdaGlobal, startLambdaUrl, type LambdaUrl } from '../../local/lambda-url';

type Runtime = {
  streamifyResponse: (fn: (event: unknown, stream: Writable, context: unknown) => Promise<void>) => unknown;
  HttpResponseStream: { from: (stream: Writable, prelude: Record<string, unknown>) => Writable };
};

installAwsLambdaGlobal();
const runtime = (globalThis as unknown as { awslambda: Runtime }).awslambda;

const servers: LambdaUrl[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function serve(fn: (event: any, stream: Writable, context: any) => Promise<void>): Promise<string> {
  const url = await startLambdaUrl({ handler: runtime.streamifyResponse(fn), functionName: 'test' });
  servers.push(url);
  return url.url;
}

test('the prelude becomes the status and headers, and the pieces after it the body, in order', async () => {
  const url = await serve(async (event, stream) => {
    const out = runtime.HttpResponseStream.from(stream, { statusCode: 201, headers: { 'content-type': 'text/event-stream', 'x-one': '1' } });
    await pipeline(Readable.from([`method ${event.requestContext.http.method} `, `body ${event.body} `, 'end']), out);
  });
  const res = await fetch(`${url}/v1/x?a=1`, { method: 'POST', body: '{"k":1}' });
  expect(res.status).toBe(201);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  expect(res.headers.get('x-one')).toBe('1');
  expect(await res.text()).toBe('method POST body {"k":1} end');
});

test('a handler that fails before writing is the function URL’s 502', async () => {
  const url = await serve(async () => {
    throw new Error('boom');
  });
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const res = await fetch(url, { method: 'POST', body: '{}' });
  error.mockRestore();
  expect(res.status).toBe(502);
  expect(await res.json()).toEqual({ Message: 'Internal Server Error' });
});

test('a client that hangs up mid-body destroys the handler’s stream', async () => {
  let destroyed!: (reason: string) => void;
  const seen = new Promise<string>((resolve) => (destroyed = resolve));
  const url = await serve(async (_event, stream) => {
    const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
    async function* forever() {
      for (;;) {
        yield 'tick\n';
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await pipeline(Readable.from(forever()), out).catch((err: Error) => destroyed(err.message));
  });
  const controller = new AbortController();
  const res = await fetch(url, { method: 'POST', body: '{}', signal: controller.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  controller.abort();
  expect(await seen).toBe('The client closed the connection');
});
