import { Readable } from 'node:stream';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import httpCors from '@middy/http-cors';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { tracingMiddlewares } from '#tracing';
import { config } from '../../core/config';
import { logger, metrics } from '../../core/observability';
import { EmptyObject } from '../../generated/checks/http';
import { successBody } from './envelope';
import { validator, type Check, type Checked } from './validation';
import type { ErrorRoute } from './errors';
import { errorResponder, type ErrorShapeOf } from './middlewares/error-responder';
import { jsonBody } from './middlewares/json-body';
import { requestLog } from './middlewares/request-log';
import { securityHeaders } from './middlewares/security-headers';
import {
  REPLY,
  STREAMED,
  type ApiContext,
  type ApiEvent,
  type ApiMiddleware,
  type ApiRequest,
  type AuthLevel,
  type Reply,
  type Streamed,
} from './types';

/** The schema of endpoints without a body, query or path: an empty object. */
export type EmptyObject = NonNullable<(typeof EmptyObject)['schema']>;

export interface EndpointOptions<B extends TSchema, Q extends TObject, P extends TObject, A extends AuthLevel> {
  auth: A;
  /** Body check (generated/checks/<area>.ts); endpoints without one accept no body (or an empty `{}`). */
  body?: Check<B>;
  query?: Check<Q>;
  path?: Check<P>;
  /**
   * Which error body shape (docs/openapi.yaml's error responses) errors take: `message` for login and validate, `thread` for chat threads,
   * `openai` on /v1; or a function of the request (the 404 route answers each prefix in its shape). The
   * spec's shapes also wrap the handler's data in `{success: true, ...}` (lib/http/envelope.ts).
   */
  errorShape?: ErrorShapeOf;
  /** The endpoint's contract for any platform failure (the spec's chat and dedicated deploy: 500). */
  platformFailures?: ErrorRoute['platformFailures'];
  /**
   * The answer is a document of its own (the OpenAPI document), sent as the handler returns it rather
   * than in the spec's `{success: true, ...}` envelope (lib/http/envelope.ts).
   */
  bare?: boolean;
  /** Skip body parsing and validation (the $default route answers 404 whatever it is sent). */
  ignoreInput?: boolean;
  /**
   * A response-streaming function (Lambda function URL with invokeMode RESPONSE_STREAM): Middy wraps
   * the handler in `awslambda.streamifyResponse`, and a `streamed` reply goes out piece by piece.
   * Needs the Lambda runtime's `awslambda` global when the module loads (local/lambda-url.ts provides
   * it locally).
   */
  streaming?: boolean;
}

/**
 * The one middleware stack, in a fixed order. Middy runs `before` top-down and `after`/`onError`
 * bottom-up, so the error responder, registered last, is the first to see an error and turns it into
 * a response; the security headers, CORS and request log registered above it then decorate that
 * response like any other. The guards (audit recorder, authentication: lib/http/endpoint.ts) sit
 * between them: the audit recorder needs the final status, and authentication runs before the body
 * is parsed and validated on purpose: a caller who is not allowed in learns nothing about the request
 * schema, and no work is done for them.
 *
 * The guards are passed in rather than imported here so that a public function (the OpenAPI
 * document, the 404 route: lib/http/public-endpoint.ts) bundles neither the token code nor the table.
 */
export function stack<A extends AuthLevel, B extends TSchema = EmptyObject, Q extends TObject = EmptyObject, P extends TObject = EmptyObject>(
  options: EndpointOptions<B, Q, P, A>,
  guards: ApiMiddleware[],
  handler: (request: ApiRequest<Checked<B>, Checked<Q>, Checked<P>, A>) => Promise<unknown>,
) {
  const body = validator<TSchema>(options.body ?? EmptyObject, 'body');
  const query = validator<TSchema>(options.query ?? EmptyObject, 'query');
  const path = validator<TSchema>(options.path ?? EmptyObject, 'path');
  const errorShape = options.errorShape ?? 'standard';

  return middy<ApiEvent, APIGatewayProxyResultV2, Error, ApiContext>({ streamifyResponse: options.streaming ?? false })
    .use(tracingMiddlewares())
    .use(requestState())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(httpEventNormalizer())
    .use(httpHeaderNormalizer())
    .use(securityHeaders())
    .use(httpCors({ origin: config.http.corsOrigin, headers: 'Authorization,Content-Type', maxAge: 600 }))
    .use(requestLog())
    .use(guards)
    .use(jsonBody(config.http.maxBodyBytes, options.ignoreInput))
    .use({
      before: ({ event, context: { state } }) => {
        if (options.ignoreInput) {
          state.input = { body: {}, query: {}, path: {} };
          return;
        }
        state.input = {
          body: body.parse(state.input?.body ?? {}),
          query: query.parse(event.queryStringParameters ?? {}),
          path: path.parse(event.pathParameters ?? {}),
        };
      },
    })
    .use(errorResponder(errorShape, { platformFailures: options.platformFailures }))
    .handler(async (event, context) => {
      const { state } = context;
      const input = state.input as { body: Checked<B>; query: Checked<Q>; path: Checked<P> };
      const result = await handler({ ...input, user: state.user as ApiRequest<B, Q, P, A>['user'], event, context });
      if (result && typeof result === 'object' && STREAMED in result) {
        const { statusCode, body, headers } = result as Streamed;
        // Middy pipes a Readable body to the response stream; a buffered function sends the whole text
        // (bytes base64-encoded, which API Gateway decodes).
        if (options.streaming) return { statusCode, headers, body: Readable.from(body) as unknown as string };
        return { statusCode, headers, ...(await collect(body)) };
      }
      const {
        statusCode,
        body: payload,
        headers,
        auditTarget,
      } = result && typeof result === 'object' && REPLY in result ? (result as Reply) : { statusCode: 200, body: result, headers: undefined };
      state.auditTarget = auditTarget;
      // A reply without a body (a redirect) carries no Content-Type for a body it does not have.
      if (payload === undefined) return { statusCode, headers: { 'Cache-Control': 'no-store', ...headers } };
      const shape = typeof errorShape === 'function' ? errorShape(event) : errorShape;
      return {
        statusCode,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
        body: JSON.stringify(options.bare ? payload : successBody(shape, payload)),
      };
    });
}

/**
 * Gives each invocation a context of its own carrying the request's state (ApiContext): Lambda's
 * context is its prototype, so every field and method of it reads as before, and nothing is added to
 * the object Lambda (or a test) passed in, which may be shared.
 */
function requestState(): ApiMiddleware {
  return {
    before: (request) => {
      const state: ApiContext['state'] = {};
      request.context = Object.assign(Object.create(request.context) as ApiContext, { state });
    },
  };
}

async function collect(pieces: AsyncIterable<string | Uint8Array>): Promise<{ body: string; isBase64Encoded?: true }> {
  const all: (string | Uint8Array)[] = [];
  for await (const piece of pieces) all.push(piece);
  if (all.every((piece) => typeof piece === 'string')) return { body: all.join('') };
  return {
    body: Buffer.concat(all.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece))).toString('base64'),
    isBase64Encoded: true,
  };
}
