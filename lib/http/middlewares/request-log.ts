import { MetricUnit, logger, metrics } from '../../../core/observability';
import type { ApiEvent, ApiMiddleware, ApiMiddlewareFn } from '../types';

/**
 * One structured line per request: route, caller, status, latency. Deliberately no headers, body or
 * query: they may carry tokens, passwords or secrets. Each request also counts in the `ApiRequests`
 * and `ApiLatency` metrics (and `ApiErrors` for a 5xx), which the stack's logMetrics publishes with
 * whatever else the request measured.
 */
export function requestLog(): ApiMiddleware {
  // Keyed by event, not a closure variable: one middleware instance serves every invocation.
  const started = new WeakMap<ApiEvent, number>();
  const done: ApiMiddlewareFn = (request) => {
    const { event, context } = request;
    const user = context.state.user;
    const response = request.response as { statusCode?: number } | undefined;
    const status = response?.statusCode ?? 500;
    const latencyMs = Math.round(performance.now() - (started.get(event) ?? performance.now()));
    logger[status >= 500 ? 'error' : 'info']({
      message: 'request',
      requestId: context.awsRequestId ?? event.requestContext?.requestId,
      route: event.routeKey,
      method: event.requestContext?.http?.method,
      userId: user?.id,
      role: user?.role,
      status,
      latencyMs,
    });
    metrics.addMetric('ApiRequests', MetricUnit.Count, 1);
    metrics.addMetric('ApiLatency', MetricUnit.Milliseconds, latencyMs);
    if (status >= 500) metrics.addMetric('ApiErrors', MetricUnit.Count, 1);
  };
  return {
    before: ({ event }) => {
      started.set(event, performance.now());
    },
    after: done,
    onError: done,
  };
}
