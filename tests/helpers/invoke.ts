import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** A handler as every function exports it. */
export type Handler = (event: never, context: Context) => Promise<unknown>;

export interface CallOptions {
  method?: string;
  path?: string;
  routeKey?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  token?: string;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
  /**
   * The time the invocation has (Lambda's context): 29 s unless told. A test that runs hundreds of
   * simulated invocations at once in one process, each its own execution environment in Lambda, may
   * give them longer, since they queue for the one process and the one DynamoDB Local.
   */
  remainingMs?: number;
  /** The caller's address (requestContext.http.sourceIp): 127.0.0.1 unless told. */
  sourceIp?: string;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: any;
  raw: string;
}

/** An API Gateway HTTP API (payload v2) event, as API Gateway would deliver it. */
export function httpEvent(options: CallOptions = {}): APIGatewayProxyEventV2 {
  const method = options.method ?? 'GET';
  const path = options.path ?? '/';
  const headers: Record<string, string> = { host: 'localhost', ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  const query = options.query;
  return {
    version: '2.0',
    routeKey: options.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString: query ? new URLSearchParams(query).toString() : '',
    headers,
    queryStringParameters: query,
    pathParameters: options.pathParameters,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: options.sourceIp ?? '127.0.0.1', userAgent: 'jest' },
      requestId: randomUUID(),
      routeKey: options.routeKey ?? `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

export function lambdaContext(remainingMs = 29_000): Context {
  return {
    awsRequestId: randomUUID(),
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Calls a handler in-process, exactly as Lambda would, and parses its response. */
export async function call(handler: Handler, options: CallOptions = {}): Promise<CallResult> {
  const result = (await handler(httpEvent(options) as never, lambdaContext(options.remainingMs))) as APIGatewayProxyStructuredResultV2;
  const raw = result.body ?? '';
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // left as text for the assertion to show
  }
  return { status: result.statusCode ?? 200, headers: (result.headers ?? {}) as Record<string, string>, body, raw };
}
