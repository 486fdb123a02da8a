/**
 * The dedicated platform's endpoint metrics: CloudWatch GetMetricData over SageMaker's invocation
 * metrics and the endpoint instances' utilisation. Its own module, so that only the functions that
 * read metrics bundle the CloudWatch client.
 */
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery, type MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from './clients';
import { guard } from './errors';
import { VARIANT_NAME, type DedicatedMetrics, type EndpointMetrics } from './types';
import { traced } from '#tracing';

const PLATFORM = 'dedicated' as const;

const round2 = (n: number) => Math.round(n * 100) / 100;

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

  destroy(): void {
    this.cloudwatch.destroy();
  }
}

export function createDedicatedMetrics(overrides: Partial<AwsPlatformOptions> = {}): CloudWatchEndpointMetrics {
  return new CloudWatchEndpointMetrics(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedMetrics: DedicatedMetrics = /* @__PURE__ */ createDedicatedMetrics();
