import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { MetricUnit, logger, metrics } from '../core/observability';
import { tracingMiddlewares } from '#tracing';

/** How much of the Lambda's time a scheduled job leaves unused, so it ends its own bookkeeping in time. */
const MARGIN_MS = 15_000;

/**
 * The stack of the functions no HTTP request starts (the table's stream consumers, the scheduled
 * jobs), built like the API's (lib/http/stack.ts): the invocation's context on every log line
 * (injectLambdaContext), the metrics published once at its end (logMetrics), tracing when bundled, and
 * one line and three metrics per run (`BackgroundRuns`, `BackgroundDuration`, `BackgroundFailures`,
 * each with a `job` dimension, as are the metrics the job records). A failure is logged with the job's
 * name and thrown on, so that Lambda records it: a stream batch is retried, then sent to its
 * on-failure queue; the next scheduled tick runs anyway.
 */
function background<E, R>(job: string, run: (event: E, context: Context) => Promise<R>) {
  const started = new WeakMap<object, number>();
  const finish = (request: middy.Request<E, R>, failed: boolean) => {
    const durationMs = Math.round(performance.now() - (started.get(request) ?? performance.now()));
    metrics.addDimension('job', job);
    metrics.addMetric('BackgroundRuns', MetricUnit.Count, 1);
    metrics.addMetric('BackgroundDuration', MetricUnit.Milliseconds, durationMs);
    if (failed) {
      metrics.addMetric('BackgroundFailures', MetricUnit.Count, 1);
      logger.error({ message: `${job} failed`, durationMs, error: request.error as Error });
    } else logger.info({ message: `${job} done`, durationMs });
  };
  return middy<E, R>()
    .use(tracingMiddlewares())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use({
      before: (request) => {
        started.set(request, performance.now());
      },
      after: (request) => finish(request, false),
      onError: (request) => finish(request, true),
    })
    .handler(run);
}

/** A consumer of the table's stream: one batch of records per invocation. */
export function streamConsumer<R>(job: string, consume: (event: DynamoDBStreamEvent) => Promise<R>) {
  return background<DynamoDBStreamEvent, R>(job, consume);
}

/**
 * A scheduled function (EventBridge): the job gets a deadline from the Lambda's remaining time.
 */
export function scheduled<R>(job: string, run: (context: { deadline: number }) => Promise<R>) {
  return background<unknown, R>(job, (_event, context) => {
    const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 60_000;
    return run({ deadline: Date.now() + Math.max(1000, remaining - MARGIN_MS) });
  });
}
