/**
 * The human-readable price lines of a model-info response (docs/openapi.yaml ModelInfo `pricing`), from the service's
 * own price table (lib/pricing): stored entries, then the shipped defaults, then a flagged estimate.
 */
import { getTokenPrice } from '../pricing/service';
import { tiersView } from '../pricing/table';
import type { PricedTier } from '../pricing/defaults';
import type { PlatformName } from '../../core/vocabulary';

/** USD with no float noise and no exponent: 0.00025 → "0.00025", 0.000006 → "0.000006", 0 → "0". */
export function usd(value: number): string {
  if (!Number.isFinite(value) || value <= 0) return '0';
  return value.toFixed(8).replace(/0+$/, '').replace(/\.$/, '');
}

/** One price's two lines. */
interface PriceLines {
  inputTokens: string;
  outputTokens: string;
}

const lines = (input: number, output: number, note: string): PriceLines => ({
  inputTokens: `$${usd(input)} per 1K input tokens${note}`,
  outputTokens: `$${usd(output)} per 1K output tokens${note}`,
});

/**
 * A model's price lines, and for a managed model that offers Flex or Priority (or has a price set for
 * one) each tier's lines and whether an admin set them or they are the working figure.
 */
export async function tokenPricing(
  platform: PlatformName,
  modelId: string,
): Promise<PriceLines & { serviceTiers?: Partial<Record<PricedTier, PriceLines & { source: 'admin' | 'default' }>> }> {
  const price = await getTokenPrice(platform, modelId);
  const note = price.source === 'fallback' ? ' (estimate)' : '';
  const tiers = tiersView(platform, modelId, price);
  return {
    ...lines(price.input_per_1k, price.output_per_1k, note),
    ...(tiers && {
      serviceTiers: Object.fromEntries(
        Object.entries(tiers).map(([tier, t]) => [tier, { ...lines(t.per_1k_input_tokens_usd, t.per_1k_output_tokens_usd, note), source: t.source }]),
      ),
    }),
  };
}
