/**
 * The local function URL (local/lambda-url.ts) against the response-streaming contract of Lambda's
 * Node.js runtime: the metadata prelude becomes the status and headers, the body passes through as
 * it is written, a failure before the first byte is the function URL's 502, a client that hangs
 * up destroys the handler's stream, and the function's timeout is Lambda's: the context counts down to
 * it, and an invocation still running then is killed without running another line of its own.
 */
import { jest } from '@jest/globals';
import { pipeline } from 'node:stream/promises';
import { Readable, type Writable } from 'node:stream';
import { startFrontDoor, type FrontDoor } from '../../local/front-door';
import { functionTimeoutMs, installAwsLambdaGlobal, startLambdaUrl, type LambdaUrl } from '../../local/lambda-url';
import { hangUp } from '../helpers/hang-up';

type Runtime = {
  streamifyResponse: (fn: (event: unknown, stream: Writable, context: unknown) => Promise<void>) => unknown;
  HttpResponseStream: { from: (stream: Writable, prelude: Record<string, unknown>) => Writable };
};

installAwsLambdaGlobal();
const runtime = (globalThis as unknown as { awslambda: Runtime }).awslambda;

const servers: (LambdaUrl | FrontDoor)[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function serve(fn: (event: any, stream: Writable, context: any) => Promise<void>, timeoutMs?: number): Promise<string> {
  const url = await startLambdaUrl({ handler: runtime.streamifyResponse(fn), functionName: 'test', timeoutMs });
  servers.push(url);
  return url.url;
}

/** A handler that streams a line every 20 ms until its stream is destroyed, and says why it was. */
function ticksUntilDestroyed(destroyed: (reason: string) => void) {
  return async (_event: unknown, stream: Writable) => {
    const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
    async function* forever() {
      for (;;) {
        yield 'tick\n';
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await pipeline(Readable.from(forever()), out).catch((err: Error) => destroyed(err.message));
  };
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
  const url = await serve(ticksUntilDestroyed(destroyed));
  const controller = new AbortController();
  const res = await fetch(url, { method: 'POST', body: '{}', signal: controller.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  controller.abort();
  expect(await seen).toBe('The client closed the connection');
});

describe('a client that hangs up at any moment leaves the function URL answering the next one', () => {
  let started!: () => void;
  let url: string;
  const closed: string[] = [];
  beforeAll(async () => {
    url = await serve(async (event, stream) => {
      if (event.rawPath === '/ok') {
        const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
        return pipeline(Readable.from(['fine']), out);
      }
      started();
      // Like the gateway reading a key: the handler awaits something before it writes a byte.
      await new Promise((r) => stream.once('close', r));
      closed.push(stream.destroyed ? 'destroyed' : 'open');
      const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: { 'content-type': 'text/event-stream' } });
      await pipeline(Readable.from(['data: late\n\n']), out).catch(() => undefined);
    });
  });
  const stillAnswers = async () => expect(await (await fetch(`${url}/ok`, { method: 'POST', body: '{}' })).text()).toBe('fine');

  const body = '{"model":"x","stream":true,"messages":[{"role":"user","content":"hi"}]}';
  const path = '/v1/chat/completions';

  test('while the handler awaits, before it has written anything', async () => {
    const running = new Promise<void>((r) => (started = r));
    await hangUp(url, { path, body, until: running });
    await new Promise((r) => setTimeout(r, 50));
    expect(closed.at(-1)).toBe('destroyed');
    await stillAnswers();
  });

  test('halfway through sending its body', async () => {
    await hangUp(url, { path, body, halfBody: true, until: 20 });
    await stillAnswers();
  });

  test('after the first bytes of the answer', async () => {
    const streaming = await serve(async (_event, stream) => {
      const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
      async function* slow() {
        for (let i = 0; i < 50; i++) {
          yield `chunk ${i}\n`;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      await pipeline(Readable.from(slow()), out).catch(() => undefined);
    });
    await hangUp(streaming, { path, body, until: 'first-bytes' });
    await new Promise((r) => setTimeout(r, 100));
    await stillAnswers();
  });
});

test('the context counts down from the function’s timeout', async () => {
  const url = await serve(async (_event, stream, context) => {
    const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
    await pipeline(Readable.from([String(context.getRemainingTimeInMillis())]), out);
  }, 7_000);
  const remaining = Number(await (await fetch(url, { method: 'POST', body: '{}' })).text());
  expect(remaining).toBeLessThanOrEqual(7_000);
  expect(remaining).toBeGreaterThan(5_000);
});

test('the deployed timeout is the function’s own in its functions.yml, else the provider’s', () => {
  expect(functionTimeoutMs('gateway', 'chatCompletionsStream')).toBe(120_000);
  expect(functionTimeoutMs('gateway', 'chatCompletions')).toBe(29_000);
});

test('an invocation still running at the timeout is killed: its connection closes and none of its code runs again, no finally', async () => {
  let pieces = 0;
  let finalized = false;
  const url = await serve(async (_event, stream) => {
    const out = runtime.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
    async function* forever() {
      try {
        for (;;) {
          pieces++;
          yield 'tick\n';
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        finalized = true;
      }
    }
    await pipeline(Readable.from(forever()), out).catch(() => undefined);
  }, 300);
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const res = await fetch(url, { method: 'POST', body: '{}' });
  expect(res.status).toBe(200);
  // The body ends when the connection is cut, part-way: reading it fails.
  await expect(res.text()).rejects.toThrow();
  expect(error).toHaveBeenCalledWith(expect.stringMatching(/Task timed out after 0\.30 seconds/));
  error.mockRestore();
  const atKill = pieces;
  await new Promise((r) => setTimeout(r, 300));
  // Alive, it would make a piece every 10 ms; frozen, it makes at most what the one-piece buffers
  // between it and the stream take in (one read ahead, one written, one in flight), then stops.
  expect(pieces - atKill).toBeLessThanOrEqual(3);
  expect(finalized).toBe(false);
});

test('a handler that fails to write anything before the timeout is the function URL’s 502', async () => {
  const url = await serve(() => new Promise(() => undefined), 200);
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const res = await fetch(url, { method: 'POST', body: '{}' });
  error.mockRestore();
  expect(res.status).toBe(502);
  expect(await res.json()).toEqual({ Message: 'Internal Server Error' });
});

describe('the front door hands a function URL of its own process the request directly (npm start)', () => {
  /** A front door whose POST /v1/x goes to `fn`'s function URL in this process; its HTTP API is nowhere. */
  async function door(fn: (event: any, stream: Writable, context: any) => Promise<void>): Promise<string> {
    const url = await startLambdaUrl({ handler: runtime.streamifyResponse(fn), functionName: 'test' });
    servers.push(url);
    // Nothing listens on the URL it would proxy to: an answer proves the hand-over.
    const front = await startFrontDoor({
      port: 0,
      apiUrl: 'http://127.0.0.1:9',
      root: false,
      functionUrls: [{ method: 'POST', path: '/v1/x', url: 'http://127.0.0.1:9', serve: url.serve }],
    });
    servers.push(front);
    return front.url;
  }

  test('the event is the one the proxied request would make, and the answer streams back', async () => {
    const url = await door(async (event, stream) => {
      const out = runtime.HttpResponseStream.from(stream, { statusCode: 201, headers: { 'content-type': 'text/plain' } });
      const seen = `${event.rawPath} ${event.body} ${event.headers['x-forwarded-proto']} ${event.headers['x-forwarded-for']}`;
      await pipeline(Readable.from([seen, ' end']), out);
    });
    const res = await fetch(`${url}/v1/x`, { method: 'POST', body: '{"k":1}' });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('/v1/x {"k":1} http 127.0.0.1 end');
  });

  test('a handler that fails before writing answers in the service’s shape, as a proxied 502 was rewritten', async () => {
    const url = await door(async () => {
      throw new Error('boom');
    });
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await fetch(`${url}/v1/x`, { method: 'POST', body: '{}' });
    error.mockRestore();
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { type: 'api_error', code: null } });
  });

  test('a client that hangs up mid-body destroys the handler’s stream', async () => {
    let destroyed!: (reason: string) => void;
    const seen = new Promise<string>((resolve) => (destroyed = resolve));
    const url = await door(ticksUntilDestroyed(destroyed));
    await hangUp(url, { path: '/v1/x', body: '{}', until: 'first-bytes' });
    expect(await seen).toBe('The client closed the connection');
  });
});
