import { costOfTokens, type Nanos } from '../../core/money';
import { listPriceEntries, type PriceSource } from '../../tables/pricing';
import { DEFAULT_INSTANCE_PRICES, DEFAULT_TOKEN_PRICES, FALLBACK_TOKEN_PRICE, type TokenPrice } from './defaults';
import type { PlatformName } from '../../core/vocabulary';

/**
 * Price lookups for costs and plans: stored entries (admin upserts and Price List refreshes, in the
 * table, see tables/pricing.ts) over the shipped defaults. The table is tiny and
 * changes rarely, so it is read once and kept for a minute per warm container; a write in this
 * container invalidates it at once, other containers see it within the minute.
 */
const CACHE_MS = 60_000;

export interface StoredPrices {
  /** Keyed `<managed|hosted>#<modelId>`. */
  tokens: Record<string, TokenPrice & { source: PriceSource; updated_at: string }>;
  instances: Record<string, { hourly_usd: number; source: PriceSource; updated_at: string }>;
}

let cache: { at: number; prices: Promise<StoredPrices> } | undefined;

export function invalidatePriceCache(): void {
  cache = undefined;
}

async function loadStored(): Promise<StoredPrices> {
  const prices: StoredPrices = { tokens: {}, instances: {} };
  for (const entry of await listPriceEntries()) {
    if (entry.kind === 'token') {
      prices.tokens[`${entry.platform}#${entry.modelId}`] = {
        input_per_1k: entry.input_per_1k,
        output_per_1k: entry.output_per_1k,
        source: entry.source,
        updated_at: entry.updated_at,
      };
    } else {
      prices.instances[entry.instanceType] = { hourly_usd: entry.hourly_usd, source: entry.source, updated_at: entry.updated_at };
    }
  }
  return prices;
}

export function storedPrices(): Promise<StoredPrices> {
  if (!cache || Date.now() - cache.at > CACHE_MS) {
    const prices = loadStored();
    cache = { at: Date.now(), prices };
    prices.catch(() => (cache = undefined));
  }
  return cache.prices;
}

export interface ResolvedTokenPrice extends TokenPrice {
  /** 'stored' (admin or Price List), 'default' (shipped table) or 'fallback' (no entry: an estimate). */
  source: 'stored' | 'default' | 'fallback';
}

export async function getTokenPrice(platform: PlatformName, modelId: string): Promise<ResolvedTokenPrice> {
  const stored = (await storedPrices()).tokens[`${platform}#${modelId}`];
  if (stored) return { input_per_1k: stored.input_per_1k, output_per_1k: stored.output_per_1k, source: 'stored' };
  const shipped = (DEFAULT_TOKEN_PRICES as Partial<Record<PlatformName, Record<string, TokenPrice>>>)[platform]?.[modelId];
  if (shipped) return { ...shipped, source: 'default' };
  return { ...FALLBACK_TOKEN_PRICE, source: 'fallback' };
}

/** Hourly USD price of one instance; undefined for an instance type with no price (unknown type). */
export async function getInstancePrice(instanceType: string): Promise<number | undefined> {
  const stored = (await storedPrices()).instances[instanceType];
  return stored?.hourly_usd ?? DEFAULT_INSTANCE_PRICES[instanceType];
}

/** What a call's tokens cost at the given price, in nano-dollars, exactly (core/money.ts costOfTokens). */
export function tokenCost(price: TokenPrice, tokensIn: number, tokensOut: number): Nanos {
  return costOfTokens([
    { tokens: tokensIn, usdPer1k: price.input_per_1k },
    { tokens: tokensOut, usdPer1k: price.output_per_1k },
  ]);
}

/** Every instance type with a price (stored or shipped), for messages that list the choices. */
export async function pricedInstanceTypes(): Promise<string[]> {
  const stored = (await storedPrices()).instances;
  return [...new Set([...Object.keys(DEFAULT_INSTANCE_PRICES), ...Object.keys(stored)])].sort();
}
