import { request } from 'node:http';

/**
 * What serverless-offline, hapi and Node's parser answer by themselves reaches clients of the local
 * stack in the service's error shapes, rewritten by the front door (local/layer-errors.ts): the
 * general shape on /api, OpenAI's on /v1. The service's own answers pass untouched.
 */
const BASE = () => process.env.E2E_FRONT_DOOR_URL as string;

async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(`${BASE()}${path}`, init);
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
}

describe('errors the local HTTP layer answers have the service’s shape', () => {
  test('a path with malformed percent-encoding is a 400 in the general shape on /api', async () => {
    const res = await get('/api/models/%zz');
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ success: false, error: 'Bad request', details: 'The path has malformed percent-encoding' });
  });

  test('and in OpenAI’s shape on /v1', async () => {
    const res = await get('/v1/models/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: 'Bad request: The path has malformed percent-encoding', type: 'invalid_request_error', code: null, param: null },
    });
  });

  test.each([
    ['a list of types', 'application/json, text/plain'],
    ['multipart without a boundary', 'multipart/form-data'],
  ])('a Content-Type hapi cannot parse (%s) is the 415 of the body rule', async (_label, type) => {
    const res = await get('/api/auth/login', { method: 'POST', headers: { 'content-type': type }, body: '{}' });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ success: false, error: 'Content-Type must be application/json', details: expect.any(String) });
  });

  test('headers over the size limit are a 431 in the general shape, not a closed socket', async () => {
    const answer = await new Promise<{ status: number; body: string }>((done, fail) => {
      const url = new URL(`${BASE()}/api/models/managed`);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers: { 'x-big': 'a'.repeat(20_000) } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', fail);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: 'Request headers too large' });
  });

  test.each([
    ['through the front door', () => process.env.E2E_FRONT_DOOR_URL as string],
    ['from serverless-offline', () => process.env.E2E_BASE_URL as string],
  ])('an unknown route under /v1 is a 404 in OpenAI’s shape with code unknown_url, %s', async (_via, base) => {
    const res = await fetch(`${base()}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message:
          'Unknown request URL: POST /v1/completions. Please check the URL for typos; this gateway serves GET /v1/models, POST /v1/chat/completions, POST /v1/embeddings, POST /v1/responses and POST /v1/messages',
        type: 'invalid_request_error',
        code: 'unknown_url',
        param: null,
      },
    });
  });

  test('the service’s own errors pass untouched', async () => {
    const res = await get('/api/auth/validate');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, message: 'No token provided' });
    const unknown = await get('/api/no-such-route');
    expect(unknown).toMatchObject({ status: 404, body: { success: false, error: 'Route not found', details: 'GET /api/no-such-route' } });
  });
});

describe('idle keep-alive connections', () => {
  /** The Keep-Alive header a server answers with on a reused-connection request (Node's says its keepAliveTimeout). */
  const keepAlive = (base: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      const req = request(`${base}/api/auth/config`, { headers: { connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.headers['keep-alive'])));
      });
      req.on('error', reject);
      req.end();
    });

  // A client reusing a pooled connection as the server closes it loses its request ("other side
  // closed"): a loaded test run did, after Node's 5 s. The local servers keep idle ones 65 s (local/keep-alive.ts).
  test.each([
    ['serverless-offline', () => process.env.E2E_BASE_URL as string],
    ['the front door', () => process.env.E2E_FRONT_DOOR_URL as string],
  ])('%s keeps them 65 s', async (_name, base) => {
    expect(await keepAlive(base())).toBe('timeout=65');
  });
});
