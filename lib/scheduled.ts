import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { flushMetrics, logger } from '../core/observability';
import { tracingMiddlewares } from '#tracing';

/** How much of the Lambda's time a scheduled job leaves unused, so it ends its own bookkeeping in time. */
const MARGIN_MS = 15_000;

/**
 * A scheduled function (EventBridge): the job gets a deadline from the Lambda's remaining time, its
 * outcome is logged, its metrics flushed, and a failure is thrown on so that Lambda records it (the
 * next tick runs anyway). Tracing, when bundled, opens the invocation's segment as for the API.
 */
export function scheduled<R>(name: string, job: (context: { deadline: number }) => Promise<R>) {
  return middy(async (_event: unknown, context: Context): Promise<R> => {
    logger.addContext(context);
    const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 60_000;
    try {
      return await job({ deadline: Date.now() + Math.max(1000, remaining - MARGIN_MS) });
    } catch (err) {
      logger.error({ message: `${name} failed`, error: err as Error });
      throw err;
    } finally {
      flushMetrics();
    }
  }).use(tracingMiddlewares());
}
