import { costOfTokens, nanosOf, usdOf, type Nanos } from '../../core/money';
import { listPriceEntries, type PriceSource } from '../../tables/pricing';
import {
  DEFAULT_INSTANCE_PRICES,
  FALLBACK_TOKEN_PRICE,
  SERVICE_TIER_PRICE_PERCENT,
  UNPRICED_CACHE,
  shippedCachePrice,
  shippedTokenPrices,
  type PricedTier,
  type TierPrice,
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
  const shipped = shippedTokenPrices(platform)[modelId];
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

/** A per-1K USD price times num/den, exactly, taken up to the pico-dollar a token (a nano-dollar per 1K) where it does not divide. */
function scaled(usdPer1k: number, num: bigint, den: bigint): number {
  return usdOf(Number((BigInt(nanosOf(usdPer1k)) * num + den - 1n) / den));
}

/** A Flex or Priority price and where it comes from: set by an admin, or the working figure. */
export interface ResolvedTierPrice {
  price: Required<TierPrice>;
  source: 'admin' | 'default';
}

/**
 * The price a tier is billed at. An admin-set tier price is exact; its cache prices are its own where
 * given, else the Standard cache prices times the tier's input price over the Standard input price
 * (Bedrock's tiers scale a model's cache as its input). Without one, every Standard price times
 * SERVICE_TIER_PRICE_PERCENT (the working figure).
 */
export function tierPrice(price: TokenPrice, tier: PricedTier): ResolvedTierPrice {
  const standard = cachePrices(price);
  const set = price.service_tiers?.[tier];
  if (!set) {
    const at = (usd: number) => scaled(usd, BigInt(SERVICE_TIER_PRICE_PERCENT[tier]), 100n);
    return {
      price: {
        input_per_1k: at(price.input_per_1k),
        output_per_1k: at(price.output_per_1k),
        cache_read_per_1k: at(standard.read),
        cache_write_per_1k: at(standard.write5m),
        cache_write_1h_per_1k: at(standard.write1h),
      },
      source: 'default',
    };
  }
  const standardIn = BigInt(nanosOf(price.input_per_1k));
  const cache = (own: number | undefined, standardPrice: number, unpriced: number) =>
    own ?? (standardIn > 0n ? scaled(standardPrice, BigInt(nanosOf(set.input_per_1k)), standardIn) : set.input_per_1k * unpriced);
  return {
    price: {
      input_per_1k: set.input_per_1k,
      output_per_1k: set.output_per_1k,
      cache_read_per_1k: cache(set.cache_read_per_1k, standard.read, UNPRICED_CACHE.read),
      cache_write_per_1k: cache(set.cache_write_per_1k, standard.write5m, UNPRICED_CACHE.write5m),
      cache_write_1h_per_1k: cache(set.cache_write_1h_per_1k, standard.write1h, UNPRICED_CACHE.write1h),
    },
    source: 'admin',
  };
}

/**
 * The one place a call's cost is computed, in nano-dollars (core/money.ts costOfTokens): plain input,
 * output, cache reads, 5-minute and 1-hour cache writes each at its own price, taken to the
 * nano-dollar upwards once. A Flex or Priority call is priced at the tier's admin-set price where
 * there is one (tierPrice), else at the tier's share of the Standard price (SERVICE_TIER_PRICE_PERCENT).
 */
export function callCost(price: TokenPrice, usage: PricedUsage): Nanos {
  const tier = usage.serviceTier ?? 'default';
  const set = tier !== 'default' && price.service_tiers?.[tier] ? tierPrice(price, tier).price : undefined;
  const billed = set ?? price;
  const cache = usage.cache;
  const per1k = cachePrices(billed);
  return costOfTokens(
    [
      { tokens: usage.tokensIn, usdPer1k: billed.input_per_1k },
      { tokens: usage.tokensOut, usdPer1k: billed.output_per_1k },
      ...(cache
        ? [
            { tokens: cache.read, usdPer1k: per1k.read },
            { tokens: cache.write5m, usdPer1k: per1k.write5m },
            { tokens: cache.write1h, usdPer1k: per1k.write1h },
          ]
        : []),
    ],
    set ? 100 : SERVICE_TIER_PRICE_PERCENT[tier],
  );
}

/** Every instance type with a price (stored or shipped), for messages that list the choices. */
export async function pricedInstanceTypes(): Promise<string[]> {
  const stored = (await storedPrices()).instances;
  return [...new Set([...Object.keys(DEFAULT_INSTANCE_PRICES), ...Object.keys(stored)])].sort();
}
