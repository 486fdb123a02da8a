/**
 * The dedicated platform's endpoint metrics: CloudWatch GetMetricData over SageMaker's invocation
 * metrics and the endpoint instances' utilisation. Its own module, so that only the functions that
 * read metrics bundle the CloudWatch client.
 */
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery, type MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { guard } from '../errors';
import { VARIANT_NAME, type DedicatedMetrics, type EndpointMetrics, type InvocationTarget } from '../types';
import { traced } from '#tracing';

const PLATFORM = 'dedicated' as const;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** CloudWatch's limits per GetMetricData request. */
const MAX_QUERIES = 500;
const MAX_DATAPOINTS = 100_800;
/** Datapoints per query at most: the period grows with the window so a week stays one batch of 69. */
const MAX_POINTS_PER_QUERY = 1440;

/** Mean of a result's values, or the sum; 0 when CloudWatch has no datapoints. */
function aggregate(result: MetricDataResult | undefined, how: 'sum' | 'mean'): number {
  const values = (result?.Values ?? []).filter((v) => Number.isFinite(v));
  if (values.length === 0) return 0;
  const sum = values.reduce((a, b) => a + b, 0);
  return how === 'sum' ? sum : sum / values.length;
}

export class CloudWatchEndpointMetrics implements DedicatedMetrics {
  private readonly cloudwatch: CloudWatchClient;

  constructor(options: AwsPlatformOptions) {
    this.cloudwatch = traced(new CloudWatchClient(http1ClientConfig(options)));
  }

  async metrics(endpointName: string, windowMinutes = 15): Promise<EndpointMetrics> {
    const minutes = Math.max(1, Math.floor(windowMinutes));
    const end = new Date();
    const start = new Date(end.getTime() - minutes * 60_000);
    const endpointDims = [{ Name: 'EndpointName', Value: endpointName }];
    const variantDims = [...endpointDims, { Name: 'VariantName', Value: VARIANT_NAME }];
    const query = (Id: string, Namespace: string, MetricName: string, Stat: string): MetricDataQuery => ({
      Id,
      MetricStat: { Metric: { Namespace, MetricName, Dimensions: variantDims }, Period: 60, Stat },
      ReturnData: true,
    });
    const queries = [
      query('latency', 'AWS/SageMaker', 'ModelLatency', 'Average'),
      query('invocations', 'AWS/SageMaker', 'Invocations', 'Sum'),
      query('errors4xx', 'AWS/SageMaker', 'Invocation4XXErrors', 'Sum'),
      query('errors5xx', 'AWS/SageMaker', 'Invocation5XXErrors', 'Sum'),
      query('cpu', '/aws/sagemaker/Endpoints', 'CPUUtilization', 'Average'),
      query('memory', '/aws/sagemaker/Endpoints', 'MemoryUtilization', 'Average'),
    ];

    const results = new Map<string, MetricDataResult>();
    let NextToken: string | undefined;
    do {
      const page = await guard(PLATFORM, () =>
        this.cloudwatch.send(
          new GetMetricDataCommand({ MetricDataQueries: queries, StartTime: start, EndTime: end, ScanBy: 'TimestampAscending', NextToken }),
        ),
      );
      for (const r of page.MetricDataResults ?? []) {
        if (!r.Id) continue;
        const seen = results.get(r.Id);
        results.set(r.Id, seen ? { ...seen, Values: [...(seen.Values ?? []), ...(r.Values ?? [])] } : r);
      }
      NextToken = page.NextToken;
    } while (NextToken);

    const invocations = aggregate(results.get('invocations'), 'sum');
    const errors = aggregate(results.get('errors4xx'), 'sum') + aggregate(results.get('errors5xx'), 'sum');
    return {
      // ModelLatency is reported in microseconds.
      response_time_ms: round2(aggregate(results.get('latency'), 'mean') / 1000),
      throughput_per_minute: round2(invocations / minutes),
      error_rate_percent: invocations > 0 ? round2(Math.min(100, (errors / invocations) * 100)) : 0,
      cpu_utilization: round2(aggregate(results.get('cpu'), 'mean')),
      memory_utilization: round2(aggregate(results.get('memory'), 'mean')),
    };
  }

  /**
   * Invocations of many endpoints in as few requests as CloudWatch's limits allow (500 queries and
   * 100,800 datapoints a request): one query per variant, the period a whole number of minutes that
   * keeps each query within 1,440 datapoints. A datapoint's period may start up to one period before
   * the window (CloudWatch aligns periods), so activity is never missed, only seen a little longer.
   */
  async invocations(targets: InvocationTarget[], windowMinutes: number, now: Date) {
    const minutes = Math.max(1, Math.ceil(windowMinutes));
    const periodSeconds = 60 * Math.max(1, Math.ceil(minutes / MAX_POINTS_PER_QUERY));
    const pointsPerQuery = Math.ceil((minutes * 60) / periodSeconds) + 1;
    const perRequest = Math.max(1, Math.min(MAX_QUERIES, Math.floor(MAX_DATAPOINTS / pointsPerQuery)));
    const start = new Date(now.getTime() - minutes * 60_000);

    const queries = targets.flatMap((t) =>
      (t.variantNames.length > 0 ? t.variantNames : [VARIANT_NAME]).map((variant) => ({ key: t.key, endpointName: t.endpointName, variant })),
    );
    const counts = new Map<string, { count: number; lastActiveAt?: string }>(targets.map((t) => [t.key, { count: 0 }]));
    let calls = 0;
    for (let i = 0; i < queries.length; i += perRequest) {
      const batch = queries.slice(i, i + perRequest);
      const MetricDataQueries: MetricDataQuery[] = batch.map((q, j) => ({
        Id: `q${j}`,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/SageMaker',
            MetricName: 'Invocations',
            Dimensions: [
              { Name: 'EndpointName', Value: q.endpointName },
              { Name: 'VariantName', Value: q.variant },
            ],
          },
          Period: periodSeconds,
          Stat: 'Sum',
        },
        ReturnData: true,
      }));
      let NextToken: string | undefined;
      do {
        calls++;
        const page = await guard(PLATFORM, () =>
          this.cloudwatch.send(
            new GetMetricDataCommand({ MetricDataQueries, StartTime: start, EndTime: now, ScanBy: 'TimestampDescending', NextToken }),
          ),
        );
        for (const r of page.MetricDataResults ?? []) {
          const q = batch[Number(r.Id?.slice(1))];
          const seen = q && counts.get(q.key);
          if (!seen) continue;
          (r.Values ?? []).forEach((value, k) => {
            if (!Number.isFinite(value) || value <= 0) return;
            seen.count += value;
            const stamp = r.Timestamps?.[k];
            const end = stamp instanceof Date ? new Date(Math.min(now.getTime(), stamp.getTime() + periodSeconds * 1000)).toISOString() : undefined;
            if (end && (!seen.lastActiveAt || end > seen.lastActiveAt)) seen.lastActiveAt = end;
          });
        }
        NextToken = page.NextToken || undefined;
      } while (NextToken);
    }
    return { counts, calls };
  }

  destroy(): void {
    this.cloudwatch.destroy();
  }
}

export function createDedicatedMetrics(overrides: Partial<AwsPlatformOptions> = {}): CloudWatchEndpointMetrics {
  return new CloudWatchEndpointMetrics(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedMetrics: DedicatedMetrics = /* @__PURE__ */ createDedicatedMetrics();
