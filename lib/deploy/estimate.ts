import { HOURS_PER_MONTH } from '../pricing/defaults';
import type { ResolvedTokenPrice } from '../pricing/service';

const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** A reference workload so a per-token price reads as money: 1,000 requests of 500 tokens in, 300 out. */
const EXAMPLE = { requests: 1000, input_tokens_per_request: 500, output_tokens_per_request: 300 };

const SOURCE_WORDS: Record<ResolvedTokenPrice['source'], string> = {
  stored: 'the service price table',
  default: 'the shipped default price table',
  fallback: 'no price entry for this model: a conservative estimate',
};

export function tokenEstimate(price: ResolvedTokenPrice) {
  const cost =
    (EXAMPLE.requests * EXAMPLE.input_tokens_per_request * price.input_per_1k) / 1000 +
    (EXAMPLE.requests * EXAMPLE.output_tokens_per_request * price.output_per_1k) / 1000;
  return {
    pricing_model: 'token' as const,
    per_1k_input_tokens_usd: price.input_per_1k,
    per_1k_output_tokens_usd: price.output_per_1k,
    hourly_usd: 0,
    monthly_usd: 0,
    price_source: SOURCE_WORDS[price.source],
    is_estimate: price.source === 'fallback',
    example: { ...EXAMPLE, cost_usd: usd(cost) },
    note: 'Billed per token actually processed; nothing is charged while the model is idle',
  };
}

export function hourlyEstimate(instanceType: string, instanceCount: number, hourlyPerInstance: number) {
  const hourly = hourlyPerInstance * instanceCount;
  return {
    pricing_model: 'hourly' as const,
    instance_type: instanceType,
    instance_count: instanceCount,
    hourly_usd_per_instance: hourlyPerInstance,
    hourly_usd: usd(hourly),
    daily_usd: usd(hourly * 24),
    monthly_usd: usd(hourly * HOURS_PER_MONTH),
    note: `Billed per instance-hour from creation until the endpoint is deleted, busy or idle (a month is ${HOURS_PER_MONTH} hours)`,
  };
}
