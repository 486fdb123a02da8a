import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { dimensionedMetric, logger } from '../../../core/observability';
import { HttpError, UpstreamError, fromDataError } from '../errors';
import type { ApiEvent } from '../types';

/**
 * Spec section 7. `standard`: success, error, details?. `message`: the login and validate variant,
 * with the text in `message`. `thread`: chat thread errors, which add threadId '' and messages [].
 */
export type ErrorShape = 'standard' | 'message' | 'thread';

export function errorBody(shape: ErrorShape, text: string, details?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { success: false, [shape === 'message' ? 'message' : 'error']: text };
  if (details) body.details = details;
  if (shape === 'thread') Object.assign(body, { threadId: '', messages: [] });
  return body;
}

/**
 * Registered last so that it is the first onError to run. HttpErrors (and the data layer's errors,
 * mapped by fromDataError) carry client-safe text; any other error is an internal failure: its message and stack go to the log, and the client gets a
 * generic 500.
 */
export function errorResponder(shape: ErrorShape): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  return {
    onError: (request) => {
      const err = fromDataError(request.error) ?? request.error;
      if (err instanceof HttpError) {
        // Every request a platform failed, by platform, whichever adapter path it came through.
        if (err instanceof UpstreamError) dimensionedMetric('UpstreamErrors', { platform: err.platform });
        if (err.statusCode >= 500) logger.error({ message: 'request failed', error: err.name, reason: err.message, details: err.details });
        request.response = respond(err.statusCode, errorBody(shape, err.message, err.details), err.headers);
        return;
      }
      logger.error({ message: 'unhandled error', error: err as Error });
      request.response = respond(500, errorBody(shape, 'Internal server error'));
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
