/**
 * A Lambda function URL with invokeMode RESPONSE_STREAM, on loopback: what serverless-offline 13
 * cannot run. It invokes a response-streaming handler in this process, under the contract the Lambda
 * Node.js runtime documents for one:
 *
 *   - the runtime's `awslambda` global: `streamifyResponse(fn)` marks a handler as streaming (it is
 *     then called as fn(event, responseStream, context)), and `HttpResponseStream.from(stream,
 *     {statusCode, headers, cookies})` makes the first bytes written a metadata prelude: that JSON,
 *     then 8 NUL bytes, then the body;
 *   - the function URL reads the prelude into the HTTP status and headers and passes every later byte
 *     to the client as it is written (chunked), with no Content-Length;
 *   - the event is the function URL's (payload format 2.0, routeKey `$default`);
 *   - a handler that fails before writing anything answers 502 {"Message":"Internal Server Error"};
 *     after the first byte, the connection is just closed.
 *
 * A client that hangs up destroys the response stream, which a handler writing through
 * stream.pipeline (Middy's streamifyResponse does) sees as its body's destruction.
 *
 * The function's timeout is enforced as Lambda enforces it (the `timeout` of the function in its
 * functions.yml, 120 s for the completions): the context's getRemainingTimeInMillis counts down to
 * it, and an invocation still running then is killed: its connection is closed and none of its code
 * runs again, no `finally` included. In one process that means freezing it: its response stream
 * accepts no further write (one byte of buffer, so a handler piping into it stalls at its next
 * piece) and is never destroyed, so the generator feeding it stays suspended where it is. Code that
 * writes nothing (a settle already under way) still completes, which Lambda would not let it do.
 *
 * `installAwsLambdaGlobal()` must run before the handler's module is imported (Middy calls
 * `awslambda.streamifyResponse` at load, as in Lambda).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { localLambdaContext } from './lambda-context';
import type { FunctionUrlRoute } from './front-door';
import { keepIdleConnections } from './keep-alive';

const STREAMING = Symbol.for('model-ops.local.streaming-handler');
const PRELUDE_DELIMITER = Buffer.alloc(8);
const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

type StreamingHandler = ((event: unknown, stream: ResponseStream, context: unknown) => Promise<unknown>) & { [STREAMING]?: true };

/** The runtime's response stream: a Writable with a content type and a hook before the first write. */
class ResponseStream extends Writable {
  contentType = 'application/octet-stream';
  beforeFirstWrite?: (write: (chunk: Buffer) => void) => void;
  /** Set when the invocation is killed: no write completes any more. */
  frozen = false;

  constructor(private readonly sink: (chunk: Buffer) => void) {
    // A one-byte buffer: every write waits for the one before it, so a frozen stream stops its writer at once.
    super({ highWaterMark: 1 });
  }

  setContentType(type: string) {
    this.contentType = type;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void) {
    if (this.frozen) return;
    if (this.beforeFirstWrite) {
      const hook = this.beforeFirstWrite;
      this.beforeFirstWrite = undefined;
      hook((c) => this.sink(c));
    }
    this.sink(chunk);
    done();
  }
}

export function installAwsLambdaGlobal(): void {
  // The SDK's invoke store (@aws/lambda-invoke-store) may have created the global already, empty.
  const g = globalThis as { awslambda?: { streamifyResponse?: unknown } };
  if (g.awslambda?.streamifyResponse) return;
  g.awslambda = Object.assign(g.awslambda ?? {}, {
    streamifyResponse: (handler: StreamingHandler) => Object.assign(handler, { [STREAMING]: true as const }),
    HttpResponseStream: {
      from(stream: ResponseStream, prelude: Record<string, unknown>) {
        stream.setContentType(PRELUDE_CONTENT_TYPE);
        stream.beforeFirstWrite = (write) => {
          write(Buffer.from(JSON.stringify(prelude)));
          write(PRELUDE_DELIMITER);
        };
        return stream;
      },
    },
  });
}

function functionUrlEvent(req: IncomingMessage, body: Buffer, requestId: string) {
  const url = new URL(req.url ?? '/', 'http://lambda-url');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  const text = body.toString('utf8');
  const binary = body.length > 0 && !Buffer.from(text, 'utf8').equals(body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: body.length > 0 ? (binary ? body.toString('base64') : text) : undefined,
    isBase64Encoded: binary,
  };
}

/** Splits the metadata prelude off the bytes the handler writes, then passes the body through. */
function preludeReader(res: ServerResponse, expectPrelude: () => boolean) {
  let pending = Buffer.alloc(0);
  let started = false;
  const start = (prelude: { statusCode?: number; headers?: Record<string, string>; cookies?: string[] }) => {
    started = true;
    const headers: Record<string, string | string[]> = { ...prelude.headers };
    if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
    res.writeHead(prelude.statusCode ?? 200, headers);
    res.flushHeaders();
  };
  return {
    get started() {
      return started;
    },
    write(chunk: Buffer) {
      if (started) return void res.write(chunk);
      if (!expectPrelude()) {
        start({ statusCode: 200, headers: { 'content-type': 'application/octet-stream' } });
        return void res.write(chunk);
      }
      pending = Buffer.concat([pending, chunk]);
      const end = pending.indexOf(PRELUDE_DELIMITER);
      if (end < 0) return;
      start(JSON.parse(pending.subarray(0, end).toString('utf8')) as Parameters<typeof start>[0]);
      const rest = pending.subarray(end + PRELUDE_DELIMITER.length);
      if (rest.length > 0) res.write(rest);
    },
  };
}

/**
 * What a function URL answers by itself (Lambda's own JSON, `{"Message": ...}`): a path with no
 * function (404), an invocation that failed or timed out before its first byte (502).
 */
type AnswerError = (res: ServerResponse, status: 404 | 502, message: string) => void;

const lambdaError: AnswerError = (res, status, message) =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ Message: message }));

/**
 * Serves one request as the function URL does, in this process: what its port runs, and what the front
 * door calls directly for the routes CloudFront sends to a function URL (`answerError` then answers
 * the function URL's own errors as the front door relays them).
 */
type ServeFunctionUrl = (req: IncomingMessage, res: ServerResponse, answerError?: AnswerError) => void;

export interface LambdaUrl {
  url: string;
  server: Server;
  serve: ServeFunctionUrl;
  close(): Promise<void>;
}

/** A response-streaming function as its URL serves it. */
interface UrlFunction {
  handler: unknown;
  functionName: string;
  /** Its timeout (120 s unless told). */
  timeoutMs?: number;
}

/**
 * Serves a response-streaming handler as its function URL would, on `port` (0: any free port), killing
 * an invocation that runs longer than `timeoutMs` (the function's timeout; 120 s unless told).
 */
export function startLambdaUrl(options: UrlFunction & { port?: number }): Promise<LambdaUrl> {
  return serveFunctionUrls({ port: options.port, functions: { '*': options } });
}

/**
 * Several functions' URLs on one loopback port, each chosen by the request's path (`*`: any path):
 * the front door sends each route to its function, and `npm start` keeps to its configured ports.
 */
async function serveFunctionUrls(options: { port?: number; functions: Record<string, UrlFunction> }): Promise<LambdaUrl> {
  for (const fn of Object.values(options.functions)) {
    const handler = fn.handler as StreamingHandler;
    if (typeof handler !== 'function' || !handler[STREAMING]) {
      throw new Error(`${fn.functionName} is not a response-streaming handler (awslambda.streamifyResponse)`);
    }
  }
  const functionOf = (url: string | undefined) => options.functions[(url ?? '/').split('?')[0] ?? '/'] ?? options.functions['*'];

  const serve: ServeFunctionUrl = (req, res, answerError = lambdaError) => {
    const fn = functionOf(req.url);
    if (!fn) return void answerError(res, 404, 'Not Found');
    const handler = fn.handler as StreamingHandler;
    const timeoutMs = fn.timeoutMs ?? 120_000;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const context = localLambdaContext(fn.functionName, Date.now() + timeoutMs);
      const requestId = context.awsRequestId;
      const reader = preludeReader(res, () => stream.contentType === PRELUDE_CONTENT_TYPE);
      const stream = new ResponseStream((chunk) => reader.write(chunk));
      // The handler learns of a hang-up through its own stream (its pipeline fails); until it pipes, or
      // if it never does, nobody else listens, and an 'error' nobody listens for ends the process.
      stream.on('error', () => undefined);
      // The function's timeout: the invocation is killed (frozen, never resumed) and its connection closed.
      let killed = false;
      const timeout = setTimeout(() => {
        killed = true;
        stream.frozen = true;
        console.error(`[${fn.functionName}] Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
        if (!reader.started) answerError(res, 502, 'Internal Server Error');
        else res.destroy();
      }, timeoutMs);
      timeout.unref();
      // The client hung up before the answer was complete: the handler's stream is destroyed under it.
      res.on('close', () => {
        clearTimeout(timeout);
        if (!res.writableFinished && !killed) stream.destroy(new Error('The client closed the connection'));
      });
      stream.on('finish', () => {
        if (!reader.started) res.writeHead(200, { 'content-type': stream.contentType });
        res.end();
      });
      handler(functionUrlEvent(req, Buffer.concat(chunks), requestId), stream, context).catch((err: unknown) => {
        if (killed || res.writableEnded || res.destroyed) return;
        if (!reader.started) {
          console.error(`[${fn.functionName}] invocation failed:`, err);
          answerError(res, 502, 'Internal Server Error');
        } else res.destroy();
      });
    });
  };
  const server = keepIdleConnections(createServer((req, res) => serve(req, res)));
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => ready());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    serve,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A function's timeout as the deploy sets it: its own `timeout` in functions/<area>/functions.yml, else the provider's. */
export function functionTimeoutMs(area: string, functionName: string): number {
  const own = (parse(readFileSync(join(ROOT, 'functions', area, 'functions.yml'), 'utf8')) as Record<string, { timeout?: number }>)[functionName]
    ?.timeout;
  const provider = (parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8')) as { provider: { timeout: number } }).provider.timeout;
  return (own ?? provider) * 1000;
}

/** The routes the deploy sends to function URLs (console/deploy/cloudfront.yml), with their functions. */
const STREAMING_ROUTES = [
  { path: '/v1/chat/completions', functionName: 'chatCompletionsStream', load: () => import('../functions/gateway/completions-stream') },
  { path: '/v1/responses', functionName: 'responsesStream', load: () => import('../functions/gateway/responses-stream') },
  { path: '/v1/messages', functionName: 'messagesStream', load: () => import('../functions/gateway/messages-stream') },
] as const;

/**
 * The routes the deploy sends to function URLs, each served here: POST /v1/chat/completions,
 * /v1/responses and /v1/messages (functions/gateway/*-stream.ts), each with its deployed timeout unless
 * `timeoutMs` says otherwise (a test of the deadline), all on `port` (each chosen by its path, as each
 * has its own URL in AWS). Call once the service's environment is in
 * process.env: a handler reads its configuration when its module loads.
 */
export async function startFunctionUrls(
  options: { port?: number; timeoutMs?: number } = {},
): Promise<{ routes: FunctionUrlRoute[]; close(): Promise<void> }> {
  installAwsLambdaGlobal();
  const functions: Record<string, UrlFunction> = {};
  for (const route of STREAMING_ROUTES) {
    functions[route.path] = {
      handler: (await route.load()).handler,
      functionName: route.functionName,
      timeoutMs: options.timeoutMs ?? functionTimeoutMs('gateway', route.functionName),
    };
  }
  const served = await serveFunctionUrls({ port: options.port, functions });
  return {
    routes: STREAMING_ROUTES.map((route) => ({ method: 'POST', path: route.path, url: served.url, serve: served.serve })),
    close: () => served.close(),
  };
}
