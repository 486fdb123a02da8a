import { dimensionedMetric, logger } from '../../../core/observability';
import { anthropicErrorBody } from '../anthropic-errors';
import { bedrockError } from '../bedrock-errors';
import { UpstreamError } from '../../errors';
import { HttpError, toHttpError, type ErrorRoute } from '../errors';
import type { ApiEvent, ApiMiddleware } from '../types';

/**
 * docs/openapi.yaml's error responses. `standard`: success, error, details?. `message`: the login and validate variant,
 * with the text in `message`. `thread`: chat thread errors, which add threadId '' and messages [].
 * `openai`: the gateway's /v1 routes answer in OpenAI's shape, which its clients parse. `anthropic`:
 * Anthropic's Messages API route (POST /v1/messages) answers in Anthropic's shape
 * (lib/http/anthropic-errors.ts). `bedrock`: the /bedrock door answers as Bedrock does, the error's name in
 * `x-amzn-errortype` and its status Bedrock's (lib/http/bedrock-errors.ts).
 */
export type ErrorShape = 'standard' | 'message' | 'thread' | 'openai' | 'anthropic' | 'bedrock';

/** The shape an endpoint's errors take: one for all its requests, or chosen per request (the 404 route's by path). */
export type ErrorShapeOf = ErrorShape | ((event: ApiEvent) => ErrorShape);

/** OpenAI's error types by status (the official clients map statuses to their exception classes). */
function openAiType(status: number, code: string | undefined, text: string): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  // A rate limit names its dimension as OpenAI does ('requests' or 'tokens'); a spent budget is a quota.
  if (status === 429) return code === 'rate_limit_exceeded' ? (/tokens per minute/.test(text) ? 'tokens' : 'requests') : 'insufficient_quota';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** `{error: {message, type, code, param}}`; a request check's message names its field, which becomes `param`. */
export function openAiErrorBody(status: number, text: string, details?: string, err?: unknown): Record<string, unknown> {
  const named = err instanceof HttpError ? err : undefined;
  const param = named?.param ?? /field '([^']+)'/.exec(text)?.[1] ?? null;
  const message = details && status < 500 ? `${text}: ${details}` : text;
  return { error: { message, type: openAiType(status, named?.code, text), code: named?.code ?? null, param } };
}

function errorBody(shape: ErrorShape, text: string, details?: string, err?: unknown): Record<string, unknown> {
  if (shape === 'openai') return openAiErrorBody(err instanceof HttpError ? err.statusCode : 500, text, details, err);
  if (shape === 'anthropic') return anthropicErrorBody(err instanceof HttpError ? err.statusCode : 500, text, details);
  const body: Record<string, unknown> = { success: false, [shape === 'message' ? 'message' : 'error']: text };
  if (details) body.details = details;
  if (shape === 'thread') Object.assign(body, { threadId: '', messages: [] });
  return body;
}

/**
 * Registered last so that it is the first onError to run. Domain, data and HTTP errors (mapped by
 * toHttpError) carry client-safe text; any other error is an internal failure: its message and stack go to the log, and the client gets a
 * generic 500.
 */
export function errorResponder(shapeOf: ErrorShapeOf, route: ErrorRoute = {}): ApiMiddleware {
  return {
    onError: (request) => {
      const shape = typeof shapeOf === 'function' ? shapeOf(request.event) : shapeOf;
      // Every request a platform failed, by platform, whichever adapter path it came through.
      if (request.error instanceof UpstreamError) dimensionedMetric('UpstreamErrors', { platform: request.error.platform });
      const err =
        toHttpError(request.error, {
          ...route,
          // Bedrock's clients retry as OpenAI's do: a platform's failure is a 5xx they retry (502, 504 a timeout), a model not in service 503.
          openAi: shape === 'openai' || shape === 'bedrock',
          gateway: shape !== 'standard' && shape !== 'message' && shape !== 'thread',
        }) ?? request.error;
      if (err instanceof HttpError) {
        if (err.statusCode >= 500) logger.error({ message: 'request failed', error: err.name, reason: err.message, details: err.details });
        if (shape === 'bedrock') {
          const answer = bedrockError(err.statusCode, err.code, err.message, err.details);
          request.response = respond(answer.status, answer.body, { ...err.headers, 'x-amzn-errortype': answer.type });
          return;
        }
        request.response = respond(err.statusCode, errorBody(shape, err.message, err.details, err), err.headers);
        return;
      }
      logger.error({ message: 'unhandled error', error: err as Error });
      request.response =
        shape === 'bedrock'
          ? respond(500, { message: 'Internal server error' }, { 'x-amzn-errortype': 'InternalServerException' })
          : respond(500, errorBody(shape, 'Internal server error'));
    },
  };
}

function respond(statusCode: number, body: unknown, headers: Record<string, string> = {}) {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}
