import { costOfTokens, type Nanos } from '../../core/money';
import { listPriceEntries, type PriceSource } from '../../tables/pricing';
import {
  DEFAULT_INSTANCE_PRICES,
  DEFAULT_TOKEN_PRICES,
  FALLBACK_TOKEN_PRICE,
  SERVICE_TIER_PRICE_PERCENT,
  UNPRICED_CACHE,
  shippedCachePrice,
  type TokenPrice,
} from './defaults';
import type { PlatformName } from '../../core/vocabulary';
import type { CacheTokens, ServiceTier } from '../platforms/types';

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
      const { kind: _kind, platform: _platform, modelId: _modelId, updated_by: _by, ...price } = entry;
      prices.tokens[`${entry.platform}#${entry.modelId}`] = price;
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

/** A model's price: a stored entry, else the shipped one, else the fallback; its cache prices from the entry, else shipped. */
export async function getTokenPrice(platform: PlatformName, modelId: string): Promise<ResolvedTokenPrice> {
  const stored = (await storedPrices()).tokens[`${platform}#${modelId}`];
  const cache = shippedCachePrice(platform, modelId);
  if (stored) {
    const { source: _source, updated_at: _at, ...price } = stored;
    return { ...cache, ...price, source: 'stored' };
  }
  const shipped = (DEFAULT_TOKEN_PRICES as Partial<Record<PlatformName, Record<string, TokenPrice>>>)[platform]?.[modelId];
  if (shipped) return { ...cache, ...shipped, source: 'default' };
  return { ...FALLBACK_TOKEN_PRICE, source: 'fallback' };
}

/** Hourly USD price of one instance; undefined for an instance type with no price (unknown type). */
export async function getInstancePrice(instanceType: string): Promise<number | undefined> {
  const stored = (await storedPrices()).instances[instanceType];
  return stored?.hourly_usd ?? DEFAULT_INSTANCE_PRICES[instanceType];
}

/** What a call's plain tokens cost at the given price, in nano-dollars, exactly (the Standard tier, no cache). */
export function tokenCost(price: TokenPrice, tokensIn: number, tokensOut: number): Nanos {
  return callCost(price, { tokensIn, tokensOut });
}

/** What a call is priced on: its plain input and output tokens, what went through the prompt cache, and the tier that served it. */
export interface PricedUsage {
  tokensIn: number;
  tokensOut: number;
  cache?: CacheTokens;
  serviceTier?: ServiceTier;
}

/** The per-1K prices of a call's cache tokens: the entry's own, else the input price scaled as UNPRICED_CACHE says. */
function cachePrices(price: TokenPrice) {
  return {
    read: price.cache_read_per_1k ?? price.input_per_1k * UNPRICED_CACHE.read,
    write5m: price.cache_write_per_1k ?? price.input_per_1k * UNPRICED_CACHE.write5m,
    write1h: price.cache_write_1h_per_1k ?? price.input_per_1k * UNPRICED_CACHE.write1h,
  };
}

/**
 * The one place a call's cost is computed, in nano-dollars (core/money.ts costOfTokens): plain input,
 * output, cache reads, 5-minute and 1-hour cache writes each at its own price, the whole at the tier's
 * share of the Standard price (SERVICE_TIER_PRICE_PERCENT), taken to the nano-dollar upwards once.
 */
export function callCost(price: TokenPrice, usage: PricedUsage): Nanos {
  const cache = usage.cache;
  const per1k = cachePrices(price);
  return costOfTokens(
    [
      { tokens: usage.tokensIn, usdPer1k: price.input_per_1k },
      { tokens: usage.tokensOut, usdPer1k: price.output_per_1k },
      ...(cache
        ? [
            { tokens: cache.read, usdPer1k: per1k.read },
            { tokens: cache.write5m, usdPer1k: per1k.write5m },
            { tokens: cache.write1h, usdPer1k: per1k.write1h },
          ]
        : []),
    ],
    SERVICE_TIER_PRICE_PERCENT[usage.serviceTier ?? 'default'],
  );
}

/** Every instance type with a price (stored or shipped), for messages that list the choices. */
export async function pricedInstanceTypes(): Promise<string[]> {
  const stored = (await storedPrices()).instances;
  return [...new Set([...Object.keys(DEFAULT_INSTANCE_PRICES), ...Object.keys(stored)])].sort();
}
