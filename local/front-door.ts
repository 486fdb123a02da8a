/**
 * The local front door: what CloudFront is in the deploy (console/deploy/cloudfront.yml), on one
 * loopback port. It serves the built console (console/dist) with the deploy's rules, and passes
 * /api/* and /v1/* to serverless-offline untouched:
 *
 *   - page paths (no dot in the last segment) get /index.html, by running the very CloudFront
 *     Function the deploy runs (console/deploy/spa-rewrite.js);
 *   - Content-Type and Cache-Control per file as the deploy uploads them (console/deploy/web-rules.cjs:
 *     hashed assets a year and immutable, index.html no-cache), ETag revalidation, gzip or brotli
 *     for text as CloudFront compresses it;
 *   - the security headers and Content-Security-Policy of the deploy's response headers policy
 *     (console/deploy/security-headers.json) on every console response;
 *   - the API passes through as a stream, unbuffered both ways (the gateway streams SSE through it),
 *     with the API's own headers; only GET and HEAD reach the console's files;
 *   - errors that serverless-offline, hapi or Node's parser answer by themselves are rewritten into
 *     the service's error shapes (local/layer-errors.ts); the service's own errors pass untouched.
 *   - `functionUrls` are the routes the deploy's CloudFront sends to a Lambda function URL instead of
 *     the HTTP API (POST /v1/chat/completions, /v1/responses and /v1/messages, which stream): served by
 *     local/lambda-url.ts, handed over in this process when it runs here (npm start), else proxied.
 *
 * `root: false` serves the API alone (the e2e tests, which need no console build).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join, normalize, resolve, sep } from 'node:path';
import { runInNewContext } from 'node:vm';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { ROOT } from './runtime';
import { inServiceShape, layerErrorBody, layerReason } from './layer-errors';
import type { RequestRecord } from './terminal';
import { CLIENT_IDLE_MS, keepIdleConnections } from './keep-alive';

const require = createRequire(import.meta.url);
const rules = require('../console/deploy/web-rules.cjs') as {
  contentType(key: string): string;
  cacheControl(key: string): string;
  securityHeaders(): Record<string, string>;
  compressible(key: string): boolean;
};

export const CONSOLE_DIST = join(ROOT, 'console', 'dist');

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] as string;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Length': String(Buffer.byteLength(text)),
    })
    .end(text);
}
const API_PREFIXES = ['/api/', '/v1/', '/bedrock/'];

type Rewrite = (event: { request: { uri: string } }) => { uri: string };

function loadRewrite(): Rewrite {
  const code = readFileSync(join(ROOT, 'console', 'deploy', 'spa-rewrite.js'), 'utf8');
  return runInNewContext(`${code}\nhandler;`, {}) as Rewrite;
}

interface File {
  body: Buffer;
  etag: string;
  gzip?: Buffer;
  br?: Buffer;
}

export interface FrontDoor {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface FunctionUrlRoute {
  method: string;
  path: string;
  url: string;
  /**
   * The function URL's server when it runs in this process (local/lambda-url.ts, under `npm start`):
   * the front door hands it the request directly rather than over loopback HTTP, which cost two more
   * HTTP parses and a proxied body each way on every gateway call. `answerError` answers what the
   * function URL answers by itself (Lambda's own 502), as the front door relays it.
   */
  serve?: (req: IncomingMessage, res: ServerResponse, answerError: (res: ServerResponse, status: number, message: string) => void) => void;
}

export async function startFrontDoor(options: {
  port: number;
  apiUrl: string;
  root?: string | false;
  host?: string;
  functionUrls?: FunctionUrlRoute[];
  /** Told of every request passed to the API or a function URL once it has ended (npm start prints a line). */
  onApiRequest?: (record: RequestRecord) => void;
}): Promise<FrontDoor> {
  const root = options.root === false ? undefined : resolve(options.root ?? CONSOLE_DIST);
  if (root && !existsSync(join(root, 'index.html')))
    throw new Error(`The console is not built (${root}/index.html is missing); run npm run console:build`);
  const api = new URL(options.apiUrl);
  const rewrite = loadRewrite();
  const security = rules.securityHeaders();
  // Idle pooled connections are dropped long before serverless-offline would close them (./keep-alive.ts).
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: CLIENT_IDLE_MS });
  const files = new Map<string, File>();
  const functionUrls = (options.functionUrls ?? []).map((r) => ({ ...r, target: new URL(r.url) }));

  const read = (key: string): File | undefined => {
    if (!root) return undefined;
    const cached = files.get(key);
    const path = normalize(join(root, key));
    if (!path.startsWith(root + sep)) return undefined;
    // index.html changes when the console is rebuilt under a running front door; assets never do.
    if (cached && key.startsWith('assets/')) return cached;
    if (!existsSync(path) || !statSync(path).isFile()) return undefined;
    const body = readFileSync(path);
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    if (cached?.etag === etag) return cached;
    const file: File = { body, etag };
    if (rules.compressible(key) && body.length >= 1000) {
      file.gzip = gzipSync(body, { level: 9 });
      file.br = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } });
    }
    files.set(key, file);
    return file;
  };

  const serveFile = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // CloudFront refuses methods a behaviour does not allow with a 403.
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', ...security }).end('This method is not allowed here.\n');
      return;
    }
    let uri: string;
    try {
      uri = decodeURIComponent(new URL(req.url ?? '/', 'http://front-door').pathname);
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', ...security }).end('Bad request.\n');
      return;
    }
    const key = rewrite({ request: { uri } }).uri.replace(/^\/+/, '');
    const file = read(key);
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', ...security }).end('Not found.\n');
      return;
    }
    const headers: Record<string, string> = {
      'Content-Type': rules.contentType(key),
      'Cache-Control': rules.cacheControl(key),
      ETag: file.etag,
      ...security,
    };
    if (file.gzip) headers.Vary = 'Accept-Encoding';
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers).end();
      return;
    }
    const accepts = String(req.headers['accept-encoding'] ?? '');
    let body = file.body;
    if (file.br && /\bbr\b/.test(accepts)) {
      body = file.br;
      headers['Content-Encoding'] = 'br';
    } else if (file.gzip && /\bgzip\b/.test(accepts)) {
      body = file.gzip;
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  /** A path API Gateway refuses too (malformed percent-encoding) is answered here; hapi would say only "Bad Request". */
  const refusedPath = (req: IncomingMessage, res: ServerResponse): boolean => {
    try {
      decodeURIComponent(pathOf(req));
      return false;
    } catch {
      sendJson(res, 400, layerErrorBody(pathOf(req), 400, 'The path has malformed percent-encoding'));
      return true;
    }
  };
  /** The headers CloudFront adds to what it passes on. */
  const forwarded = (req: IncomingMessage) => ({ 'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1', 'x-forwarded-proto': 'http' });

  const proxy = (req: IncomingMessage, res: ServerResponse, target: URL = api) => {
    if (refusedPath(req, res)) return;
    const headers = { ...req.headers, host: target.host, ...forwarded(req) };
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      if ((answer.statusCode ?? 502) >= 400) return void relayError(req, res, answer);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      // Headers go out at once, and each chunk as it comes: nothing waits for the whole body.
      res.flushHeaders();
      answer.pipe(res);
    });
    // The client hanging up ends the upstream request too; its error then says nothing about the API.
    let clientGone = false;
    upstream.on('error', (err) => {
      // The client went away (a navigation cancelled its request): nothing to answer, nothing wrong.
      if (clientGone || res.destroyed) return;
      if (res.headersSent) return void res.destroy(err);
      sendJson(res, 502, layerErrorBody(pathOf(req), 502));
      console.error(`front door: the API is not reachable: ${err.message}`);
    });
    res.on('close', () => {
      clientGone = !res.writableFinished;
      upstream.destroy();
    });
    req.pipe(upstream);
  };

  /** A function URL served in this process: the request as the proxy would pass it on, without the hop. */
  const serveHere = (req: IncomingMessage, res: ServerResponse, serve: NonNullable<FunctionUrlRoute['serve']>) => {
    if (refusedPath(req, res)) return;
    const path = pathOf(req);
    Object.assign(req.headers, forwarded(req));
    serve(req, res, (answer, status, message) => {
      if (status >= 500) console.error(`front door: ${req.method} ${path} answered ${status} by the local layer: ${message}`);
      sendJson(answer, status, layerErrorBody(path, status));
    });
  };

  /**
   * An error answer is small: it is read whole, and passed on as it is when the service's error
   * responder wrote it, or rewritten into the service's shape when serverless-offline or hapi did
   * (local/layer-errors.ts). Successful answers stream untouched.
   */
  const relayError = (req: IncomingMessage, res: ServerResponse, answer: IncomingMessage) => {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('error', (err) => res.destroy(err));
    answer.on('end', () => {
      const raw = Buffer.concat(chunks);
      const status = answer.statusCode ?? 502;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      if (inServiceShape(pathOf(req), parsed)) {
        res.writeHead(status, answer.statusMessage, answer.rawHeaders);
        res.end(raw);
        return;
      }
      if (status >= 500)
        console.error(`front door: ${req.method} ${pathOf(req)} answered ${status} by the local layer: ${raw.toString('utf8').slice(0, 2000)}`);
      const reason = layerReason(raw.toString('utf8'));
      // hapi refuses a Content-Type it cannot parse (a list, multipart without a boundary) with a 400;
      // the service's rule for those is 415 (docs/openapi.yaml, "Request bodies").
      const refused = status === 400 && /content-type/i.test(reason ?? '') ? 415 : status;
      sendJson(res, refused, layerErrorBody(pathOf(req), refused, reason));
    });
  };

  const record = (req: IncomingMessage, res: ServerResponse, path: string) => {
    const report = options.onApiRequest;
    if (!report) return;
    const at = new Date();
    const started = performance.now();
    res.once('close', () =>
      report({
        at,
        method: req.method ?? 'GET',
        path,
        status: res.headersSent ? res.statusCode : undefined,
        ms: performance.now() - started,
        hungUp: !res.writableFinished,
      }),
    );
  };

  const server = keepIdleConnections(
    createServer((req, res) => {
      res.socket?.setNoDelay(true);
      const path = (req.url ?? '/').split('?')[0] as string;
      const functionUrl = functionUrls.find((r) => r.method === req.method && r.path === path);
      const toApi = API_PREFIXES.some((p) => path.startsWith(p)) || path === '/api' || path === '/v1';
      if (functionUrl || toApi) record(req, res, path);
      if (functionUrl?.serve) serveHere(req, res, functionUrl.serve);
      else if (functionUrl) proxy(req, res, functionUrl.target);
      else if (toApi) proxy(req, res);
      else serveFile(req, res);
    }),
  );
  // Node's parser refuses some requests before any handler runs (oversize headers: 431, a malformed
  // request line: 400); it would close the socket with an empty body. The client gets the shape.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify(layerErrorBody('/api/', status));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port, host, () => ready());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((done) => {
        agent.destroy();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
