import { HOURS_PER_MONTH } from '../pricing/defaults';
import type { ResolvedTokenPrice } from '../pricing/service';
import { costOfTokens, usdOf, usdTimes } from '../../core/money';

/** A reference workload so a per-token price reads as money: 1,000 requests of 500 tokens in, 300 out. */
const EXAMPLE = { requests: 1000, input_tokens_per_request: 500, output_tokens_per_request: 300 };

const SOURCE_WORDS: Record<ResolvedTokenPrice['source'], string> = {
  stored: 'the service price table',
  default: 'the shipped default price table',
  fallback: 'no price entry for this model: a conservative estimate',
};

export function tokenEstimate(price: ResolvedTokenPrice) {
  const cost = costOfTokens([
    { tokens: EXAMPLE.requests * EXAMPLE.input_tokens_per_request, usdPer1k: price.input_per_1k },
    { tokens: EXAMPLE.requests * EXAMPLE.output_tokens_per_request, usdPer1k: price.output_per_1k },
  ]);
  return {
    pricing_model: 'token' as const,
    per_1k_input_tokens_usd: price.input_per_1k,
    per_1k_output_tokens_usd: price.output_per_1k,
    hourly_usd: 0,
    monthly_usd: 0,
    price_source: SOURCE_WORDS[price.source],
    is_estimate: price.source === 'fallback',
    example: { ...EXAMPLE, cost_usd: usdOf(cost) },
    note: 'Billed per token actually processed; nothing is charged while the model is idle',
  };
}

export function hourlyEstimate(instanceType: string, instanceCount: number, hourlyPerInstance: number) {
  return {
    pricing_model: 'hourly' as const,
    instance_type: instanceType,
    instance_count: instanceCount,
    hourly_usd_per_instance: hourlyPerInstance,
    hourly_usd: usdTimes(hourlyPerInstance, instanceCount),
    daily_usd: usdTimes(hourlyPerInstance, instanceCount, 24),
    monthly_usd: usdTimes(hourlyPerInstance, instanceCount, HOURS_PER_MONTH),
    note: `Billed per instance-hour from creation until the endpoint is deleted, busy or idle (a month is ${HOURS_PER_MONTH} hours)`,
  };
}
