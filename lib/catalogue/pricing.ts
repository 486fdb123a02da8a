/**
 * The human-readable price lines of a model-info response (docs/openapi.yaml ModelInfo `pricing`), from the service's
 * own price table (lib/pricing): stored entries, then the shipped defaults, then a flagged estimate.
 */
import { getTokenPrice } from '../pricing/service';
import type { PlatformName } from '../../core/vocabulary';

/** USD with no float noise and no exponent: 0.00025 → "0.00025", 0.000006 → "0.000006", 0 → "0". */
export function usd(value: number): string {
  if (!Number.isFinite(value) || value <= 0) return '0';
  return value.toFixed(8).replace(/0+$/, '').replace(/\.$/, '');
}

export async function tokenPricing(platform: PlatformName, modelId: string): Promise<{ inputTokens: string; outputTokens: string }> {
  const price = await getTokenPrice(platform, modelId);
  const note = price.source === 'fallback' ? ' (estimate)' : '';
  return {
    inputTokens: `$${usd(price.input_per_1k)} per 1K input tokens${note}`,
    outputTokens: `$${usd(price.output_per_1k)} per 1K output tokens${note}`,
  };
}
