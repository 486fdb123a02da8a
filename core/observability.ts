import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from './config';

/**
 * The structured JSON logger (Powertools). Locally, POWERTOOLS_DEV=true pretty-prints it. Nothing
 * that could hold a secret is ever passed to it: request bodies, headers and tokens are not logged,
 * only the route, the caller's id and role, the status and the latency.
 */
export const logger = new Logger({
  serviceName: config.serviceName,
  logLevel: config.observability.logLevel as 'INFO',
  persistentKeys: { stage: config.stage },
});

/**
 * Business metrics in CloudWatch Embedded Metric Format (Powertools): written to the log as JSON,
 * turned into metrics by CloudWatch with no API call on the request path. Published once per
 * invocation by Powertools' logMetrics in the stacks (lib/http/stack.ts, lib/background.ts). Off under
 * POWERTOOLS_DEV (local) and in tests.
 */
export const metrics = new Metrics({
  namespace: 'ModelOps',
  serviceName: config.serviceName,
  defaultDimensions: { stage: config.stage },
  // Its own warnings (an invalid dimension, nothing to publish) as structured lines of the one logger,
  // with the invocation's context and its level, not bare console text.
  logger,
});

export { MetricUnit };

/** A metric with a dimension of its own (e.g. per platform), emitted at once. */
export function dimensionedMetric(
  name: string,
  dimension: Record<string, string>,
  value = 1,
  unit: (typeof MetricUnit)[keyof typeof MetricUnit] = MetricUnit.Count,
): void {
  const single = metrics.singleMetric();
  for (const [k, v] of Object.entries(dimension)) single.addDimension(k, v);
  single.addMetric(name, unit, value);
}

export function flushMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
