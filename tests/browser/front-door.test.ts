/**
 * The local front door (local/front-door.ts) on its own, against a small upstream made for each case:
 * what it must do that a browser test cannot see plainly (streaming, headers passed untouched, files
 * outside the build refused).
 */
import { jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startFrontDoor, type FrontDoor } from '../../local/front-door';
import { hangUp } from '../helpers/hang-up';

let root: string;
let upstream: Server;
let door: FrontDoor;
let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
let releaseSecondChunk: () => void = () => undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'front-door-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(root, 'assets', 'app-1234.js'), 'console.log("app");'.repeat(100));
  upstream = createServer((req, res) => {
    if (req.url === '/v1/slow') {
      // An answer that starts after 50 ms and streams for a while: room for a client to hang up.
      req.resume();
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const ticker = setInterval(() => res.write('data: tick\n\n'), 10);
        res.on('close', () => clearInterval(ticker));
      }, 50);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (req.url === '/v1/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: first\n\n');
      releaseSecondChunk = () => res.end('data: second\n\n');
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.writeHead(201, { 'content-type': 'application/json', 'x-api-header': 'kept' }).end('{"success":true}');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const { port } = upstream.address() as { port: number };
  door = await startFrontDoor({ port: 0, apiUrl: `http://127.0.0.1:${port}`, root });
});

/** The status of a GET sent with exactly this path (fetch would normalise it). */
function rawStatus(path: string): Promise<number> {
  const { hostname, port } = new URL(door.url);
  return new Promise((resolve, reject) => {
    get({ host: hostname, port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

afterAll(async () => {
  await door?.close();
  await new Promise((r) => upstream?.close(r));
  rmSync(root, { recursive: true, force: true });
});

test('a streamed API response reaches the client chunk by chunk, before the upstream has finished', async () => {
  const res = await fetch(`${door.url}/v1/stream`);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
  releaseSecondChunk();
  let rest = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
  expect(rest).toBe('data: second\n\n');
});

test('API requests pass with their method, path, query, body and Authorization; answers come back with their own status and headers', async () => {
  const res = await fetch(`${door.url}/api/things/1?x=2`, {
    method: 'PATCH',
    headers: { authorization: 'Bearer t0ken', 'content-type': 'application/json' },
    body: '{"a":1}',
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('x-api-header')).toBe('kept');
  // The console's CSP is for its own files; API answers carry only the API's headers.
  expect(res.headers.get('content-security-policy')).toBeNull();
  expect(seen).toMatchObject({ method: 'PATCH', url: '/api/things/1?x=2', body: '{"a":1}' });
  expect(seen.headers?.authorization).toBe('Bearer t0ken');
});

test('page paths are answered with index.html, files by their own rules, and nothing outside the build', async () => {
  const page = await fetch(`${door.url}/resources/8d3c`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<title>console</title>');
  expect(page.headers.get('cache-control')).toBe('no-cache');
  const etag = page.headers.get('etag') as string;
  expect((await fetch(`${door.url}/chat`, { headers: { 'if-none-match': etag } })).status).toBe(304);

  const asset = await fetch(`${door.url}/assets/app-1234.js`, { headers: { 'accept-encoding': 'br' } });
  expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(asset.headers.get('content-encoding')).toBe('br');
  expect(await asset.text()).toContain('console.log("app")');

  // A file beside the build, asked for with encoded slashes that survive URL parsing.
  const outside = `${root}-outside.json`;
  writeFileSync(outside, '{"secret":true}');
  try {
    expect(await rawStatus(`/assets/..%2F..%2F${basename(outside)}`)).toBe(404);
  } finally {
    rmSync(outside, { force: true });
  }
  expect((await fetch(`${door.url}/assets/nope.js`)).status).toBe(404);
  expect((await fetch(`${door.url}/models`, { method: 'POST' })).status).toBe(403);
});

test('an API that is down is reported in the API’s error shape, and in the terminal', async () => {
  const orphan = await startFrontDoor({ port: 0, apiUrl: 'http://127.0.0.1:9', root });
  const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const res = await fetch(`${orphan.url}/api/auth/validate`);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ success: false, error: 'The API is not reachable' });
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^front door: the API is not reachable: connect ECONNREFUSED/));
  } finally {
    logged.mockRestore();
    await orphan.close();
  }
});

describe('a client that hangs up at any moment', () => {
  const body = '{"model":"x","stream":true}';
  test.each([
    ['at once', { until: 0 }],
    ['while the API is still working on it', { until: 30 }],
    ['halfway through its body', { until: 10, halfBody: true }],
    ['after the first bytes of a stream', { until: 'first-bytes' as const }],
  ])('%s: the front door says nothing of an unreachable API and answers the next request', async (_when, o) => {
    const logged = jest.spyOn(console, 'error');
    try {
      await hangUp(door.url, { path: '/v1/slow', body, ...o });
      // Long enough for the front door to see the hang-up and end the upstream request.
      await new Promise((r) => setTimeout(r, 100));
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
    expect((await fetch(`${door.url}/api/things/1`, { method: 'POST', body: '{}' })).status).toBe(201);
  });
});
