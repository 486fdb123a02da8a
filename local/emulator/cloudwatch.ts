/**
 * Amazon CloudWatch GetMetricData. The installed client speaks awsJson1.0 in awsQuery-compatible mode
 * (X-Amz-Target GraniteServiceVersion20100801.GetMetricData), so errors carry the legacy query code
 * in x-amzn-query-error, which is what the SDK names its exceptions after.
 *
 * Invocation metrics come from the emulator's real InvokeEndpoint traffic; instance metrics are
 * deterministic functions of endpoint name, time and that traffic.
 */
import { settleEndpoint } from './sagemaker';
import { EmulatorError, compact, jsonReply, parseJson, type Ctx, type Endpoint, type Invocation, type Reply, type ServiceDef } from './shared';

const CONTENT_TYPE = 'application/x-amz-json-1.0';
const DEFAULT_MAX_DATAPOINTS = 100_800;
const MAX_QUERIES = 500;

interface MetricDataQuery {
  Id?: string;
  Label?: string;
  Expression?: string;
  ReturnData?: boolean;
  MetricStat?: {
    Metric?: { Namespace?: string; MetricName?: string; Dimensions?: Array<{ Name?: string; Value?: string }> };
    Period?: number;
    Stat?: string;
  };
}

interface GetMetricDataInput {
  MetricDataQueries?: MetricDataQuery[];
  StartTime?: number;
  EndTime?: number;
  ScanBy?: 'TimestampDescending' | 'TimestampAscending';
  MaxDatapoints?: number;
}

const invalid = (message: string) =>
  new EmulatorError(400, 'com.amazon.coral.validate#ValidationException', message, {
    queryCode: 'ValidationError',
    queryFault: 'Sender',
  });

function hash(text: string): number {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

const round = (n: number) => Math.round(n * 100) / 100;

function applyStat(stat: string, samples: number[]): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = samples.reduce((a, b) => a + b, 0);
  switch (stat) {
    case 'Sum':
      return sum;
    case 'SampleCount':
      return samples.length;
    case 'Minimum':
      return sorted[0];
    case 'Maximum':
      return sorted.at(-1);
    case 'Average':
      return sum / samples.length;
  }
  const percentile = /^p(\d+(\.\d+)?)$/.exec(stat);
  if (percentile) {
    const rank = Math.ceil((Number(percentile[1]) / 100) * sorted.length) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
  }
  throw invalid(`The value ${stat} for parameter MetricDataQueries.member.1.MetricStat.Stat is not valid.`);
}

/** Samples of one metric in one period, or undefined when the service would publish nothing. */
function samplesFor(namespace: string, metric: string, ep: Endpoint, calls: Invocation[], periodStart: number): number[] | undefined {
  const errors4xx = calls.filter((c) => c.status >= 400 && c.status < 500 && c.status !== 424).length;
  // ModelError (424) means the container answered 5xx: SageMaker counts it as a 5XX invocation error.
  const errors5xx = calls.filter((c) => c.status >= 500 || c.status === 424).length;
  const load = Math.min(1, calls.length / 20);
  const wave = Math.sin((periodStart / 1000 + (hash(ep.name) % 3600)) / 600);

  if (namespace === 'AWS/SageMaker') {
    switch (metric) {
      case 'Invocations':
        return [calls.length];
      case 'Invocation4XXErrors':
        return [errors4xx];
      case 'Invocation5XXErrors':
        return [errors5xx];
      case 'ModelLatency':
        return calls.filter((c) => c.status === 200).map((c) => c.latencyUs);
      case 'OverheadLatency':
        return calls.map((c) => 900 + (hash(`${ep.name}${c.at}`) % 400));
      default:
        return undefined;
    }
  }
  if (namespace === '/aws/sagemaker/Endpoints') {
    switch (metric) {
      case 'CPUUtilization':
        return [round(12 + 4 * wave + 60 * load)];
      case 'MemoryUtilization':
        return [round(38 + 2 * wave + 10 * load)];
      case 'GPUUtilization':
        return [round(3 + 2 * wave + 85 * load)];
      case 'GPUMemoryUtilization':
        return [round(62 + wave + 8 * load)];
      case 'DiskUtilization':
        return [round(21 + 0.5 * wave)];
      default:
        return undefined;
    }
  }
  return undefined;
}

/**
 * The endpoint and variant a metric's dimensions name. SageMaker publishes both namespaces per
 * variant only, with exactly the dimensions EndpointName and VariantName: a query that names fewer,
 * more or others matches no metric and gets no datapoints, as in CloudWatch.
 */
function endpointVariant(ctx: Ctx, dimensions: Array<{ Name?: string; Value?: string }>): { endpoint: Endpoint; variant: string } | undefined {
  const names = dimensions.map((d) => d.Name).sort();
  if (names.length !== 2 || names[0] !== 'EndpointName' || names[1] !== 'VariantName') return undefined;
  const endpointName = dimensions.find((d) => d.Name === 'EndpointName')?.Value;
  const variant = dimensions.find((d) => d.Name === 'VariantName')?.Value;
  const endpoint = endpointName ? settleEndpoint(ctx.state, ctx.opts, endpointName) : undefined;
  if (!endpoint || !variant) return undefined;
  const variants = ctx.state.endpointConfigs.get(endpoint.configName)?.variants.map((v) => v.VariantName) ?? [];
  return variants.includes(variant) ? { endpoint, variant } : undefined;
}

function runQuery(ctx: Ctx, q: MetricDataQuery, start: number, end: number, maxPoints: number, ascending: boolean) {
  const id = q.Id ?? '';
  const metric = q.MetricStat?.Metric;
  if (!metric) {
    return {
      Id: id,
      Label: q.Label ?? id,
      Timestamps: [],
      Values: [],
      StatusCode: 'Complete',
      Messages: [{ Code: 'Unsupported', Value: 'The emulator evaluates MetricStat queries only, not expressions.' }],
    };
  }
  const periodMs = (q.MetricStat?.Period ?? 60) * 1000;
  const stat = q.MetricStat?.Stat ?? 'Average';
  const target = endpointVariant(ctx, metric.Dimensions ?? []);
  const ep = target?.endpoint;

  const points: Array<[number, number]> = [];
  if (ep) {
    const from = Math.max(start, Math.floor(ep.createdAt / periodMs) * periodMs);
    const calls = ctx.state.invocations.filter((c) => c.endpoint === ep.name && c.variant === target.variant);
    for (let t = Math.floor(from / periodMs) * periodMs; t < end && t <= Date.now() && points.length < maxPoints; t += periodMs) {
      if (t + periodMs <= start) continue;
      const inPeriod = calls.filter((c) => c.at >= t && c.at < t + periodMs);
      const samples = samplesFor(metric.Namespace ?? '', metric.MetricName ?? '', ep, inPeriod, t);
      const value = samples && applyStat(stat, samples);
      if (value !== undefined) points.push([t, value]);
    }
  }
  if (!ascending) points.reverse();
  return {
    Id: id,
    Label: q.Label ?? metric.MetricName,
    Timestamps: points.map(([t]) => t / 1000),
    Values: points.map(([, v]) => v),
    StatusCode: 'Complete',
  };
}

async function getMetricData(ctx: Ctx): Promise<Reply> {
  const input = parseJson<GetMetricDataInput>(ctx);
  if (typeof input.StartTime !== 'number') {
    throw invalid("1 validation error detected: Value null at 'startTime' failed to satisfy constraint: Member must not be null");
  }
  if (typeof input.EndTime !== 'number') {
    throw invalid("1 validation error detected: Value null at 'endTime' failed to satisfy constraint: Member must not be null");
  }
  const queries = input.MetricDataQueries ?? [];
  if (queries.length === 0) {
    throw invalid(
      "1 validation error detected: Value '[]' at 'metricDataQueries' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  }
  if (queries.length > MAX_QUERIES) throw invalid(`The collection MetricDataQueries must not have a size greater than ${MAX_QUERIES}.`);
  for (const [i, q] of queries.entries()) {
    const period = q.MetricStat?.Period;
    if (
      q.MetricStat &&
      (typeof period !== 'number' || !(period > 0) || (period >= 60 && period % 60 !== 0) || (period < 60 && ![1, 5, 10, 30].includes(period)))
    ) {
      throw invalid(`The parameter MetricDataQueries.member.${i + 1}.MetricStat.Period must be 1, 5, 10, 30, or a multiple of 60.`);
    }
  }
  const start = input.StartTime * 1000;
  const end = input.EndTime * 1000;
  if (end <= start) throw invalid('The parameter StartTime must be less than the parameter EndTime.');

  const maxPoints = input.MaxDatapoints ?? DEFAULT_MAX_DATAPOINTS;
  const ascending = input.ScanBy === 'TimestampAscending';
  const results = queries.filter((q) => q.ReturnData !== false).map((q) => compact(runQuery(ctx, q, start, end, maxPoints, ascending)));
  return jsonReply({ MetricDataResults: results, Messages: [] }, CONTENT_TYPE);
}

export const cloudwatch: ServiceDef = {
  name: 'cloudwatch',
  errorStyle: { kind: 'queryCompatJson', contentType: CONTENT_TYPE, namespace: 'com.amazonaws.cloudwatch' },
  internalError: () =>
    new EmulatorError(500, 'InternalServiceFault', 'Internal service error.', { queryCode: 'InternalServiceError', queryFault: 'Receiver' }),
  throttlingError: () =>
    new EmulatorError(400, 'com.amazon.coral.availability#ThrottlingException', 'Rate exceeded', {
      queryCode: 'Throttling',
      queryFault: 'Sender',
    }),
  route(ctx) {
    const target = String(ctx.headers['x-amz-target'] ?? '');
    if (ctx.method !== 'POST' || target !== 'GraniteServiceVersion20100801.GetMetricData') return undefined;
    const input = parseJson<GetMetricDataInput>(ctx);
    const keys = (input.MetricDataQueries ?? [])
      .flatMap((q) => q.MetricStat?.Metric?.Dimensions ?? [])
      .filter((d) => d.Name === 'EndpointName' && typeof d.Value === 'string')
      .map((d) => d.Value as string);
    return { op: 'GetMetricData', keys, run: () => getMetricData(ctx) };
  },
};
