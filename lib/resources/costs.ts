import { logger } from '../../core/observability';
import { HOURS_PER_MONTH } from '../pricing/defaults';
import { isBillable, monthToDate } from './billing';
import { getInstancePrice, getTokenPrice } from '../pricing/service';
import { endpointMetricsOf } from '../platforms/endpoints';
import type { EndpointMetrics } from '../platforms/types';
import type { TrackedResource } from '../../tables/resources';
import { traitsOf } from '../platforms/registry';
import { usdTimes } from '../../core/money';

/** docs/openapi.yaml Resource costs object, and what dedicated endpoints have cost this month. */
export interface Costs {
  hourly_cost: number;
  daily_cost: number;
  monthly_estimate: number;
  last_updated: string;
  pricing_model: 'hourly' | 'token';
  per_1k_input_tokens_usd?: number;
  per_1k_output_tokens_usd?: number;
  /** hourly: billable instance-hours this month x the hourly price of one instance. */
  month_to_date_usd?: number;
}

/** Hourly, daily (x24) and monthly (x730, AWS's average month) cost of `count` instances. */
export function hourlyCosts(hourlyPerInstance: number, count: number, at: string): Costs {
  return {
    hourly_cost: usdTimes(hourlyPerInstance, count),
    daily_cost: usdTimes(hourlyPerInstance, count, 24),
    monthly_estimate: usdTimes(hourlyPerInstance, count, HOURS_PER_MONTH),
    last_updated: at,
    pricing_model: 'hourly',
  };
}

/** The hourly price of one of a dedicated resource's instances (0 if its type lost its price). */
export async function instancePriceOf(r: Pick<TrackedResource, 'instance_type'>): Promise<number> {
  // An instance type priced at deploy time can only lose its price if an admin removed it; 0 then.
  return (r.instance_type ? await getInstancePrice(r.instance_type) : undefined) ?? 0;
}

export async function costsOf(r: TrackedResource, now = new Date()): Promise<Costs> {
  const at = now.toISOString();
  if (traitsOf(r.type).billing === 'per-hour') {
    const price = await instancePriceOf(r);
    // Nothing bills while the endpoint is stopped, failed or being deleted: the hourly figures are 0.
    const running = hourlyCosts(isBillable(r.status) ? price : 0, r.instance_count ?? 1, at);
    return { ...running, month_to_date_usd: monthToDate(r, price, now).usd };
  }
  const price = await getTokenPrice(r.type, r.model_id);
  return {
    hourly_cost: 0,
    daily_cost: 0,
    monthly_estimate: 0,
    last_updated: at,
    pricing_model: 'token',
    per_1k_input_tokens_usd: price.input_per_1k,
    per_1k_output_tokens_usd: price.output_per_1k,
  };
}

/** Mean latency of this service's chat turns with the resource; 0 before the first one. */
export function meanChatLatency(r: Pick<TrackedResource, 'chat_count' | 'chat_latency_ms_total'>): number {
  return r.chat_count > 0 ? Math.round((r.chat_latency_ms_total / r.chat_count) * 100) / 100 : 0;
}

const ZERO_METRICS: EndpointMetrics = {
  response_time_ms: 0,
  throughput_per_minute: 0,
  error_rate_percent: 0,
  cpu_utilization: 0,
  memory_utilization: 0,
};

/**
 * docs/openapi.yaml Resource metrics. Dedicated: CloudWatch over the last 15 minutes. If CloudWatch cannot be read the
 * status still answers (the polling workflow depends on it) with zeros and a warning.
 */
export async function metricsOf(r: TrackedResource): Promise<{ metrics: Partial<EndpointMetrics>; warning?: string }> {
  if (traitsOf(r.type).lifecycle !== 'endpoint') return { metrics: { response_time_ms: meanChatLatency(r) } };
  // A guardrail deleted the endpoint: nothing runs to measure.
  if (r.stopped) return { metrics: { ...ZERO_METRICS } };
  try {
    const m = await endpointMetricsOf(r.type).metrics(r.endpoint_name, 15);
    return {
      metrics: {
        response_time_ms: m.response_time_ms,
        throughput_per_minute: m.throughput_per_minute,
        error_rate_percent: m.error_rate_percent,
        cpu_utilization: m.cpu_utilization,
        memory_utilization: m.memory_utilization,
      },
    };
  } catch (err) {
    logger.warn({ message: 'endpoint metrics unavailable', resourceId: r.id, error: (err as Error).message });
    return { metrics: { ...ZERO_METRICS }, warning: 'Metrics are temporarily unavailable; the figures shown are zeros' };
  }
}
