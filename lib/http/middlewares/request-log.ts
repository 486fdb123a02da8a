import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { flushMetrics, logger } from '../../../core/observability';
import type { ApiEvent } from '../types';

/**
 * One structured line per request: route, caller, status, latency. Deliberately no headers, body or
 * query: they may carry tokens, passwords or secrets.
 */
export function requestLog(): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  // Keyed by event, not a closure variable: one middleware instance serves every invocation.
  const started = new WeakMap<object, number>();
  const done: middy.MiddlewareFn<ApiEvent, APIGatewayProxyResultV2> = (request) => {
    const { event, context } = request;
    const response = request.response as { statusCode?: number } | undefined;
    const status = response?.statusCode ?? 500;
    logger[status >= 500 ? 'error' : 'info']({
      message: 'request',
      requestId: context.awsRequestId ?? event.requestContext?.requestId,
      route: event.routeKey,
      method: event.requestContext?.http?.method,
      userId: event.user?.id,
      role: event.user?.role,
      status,
      latencyMs: Math.round(performance.now() - (started.get(event) ?? performance.now())),
    });
    flushMetrics();
  };
  return {
    before: ({ event }) => {
      started.set(event, performance.now());
    },
    after: done,
    onError: done,
  };
}
