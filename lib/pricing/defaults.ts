/**
 * The default price table, so a fresh install has prices. USD, on-demand list prices of the AWS
 * regions in us-east-1 at the time of writing; admins override entries (POST /api/pricing) or refresh
 * them from the AWS Price List API (POST /api/pricing/update).
 */
import type { PlatformName } from '../../core/vocabulary';

export interface TokenPrice {
  input_per_1k: number;
  output_per_1k: number;
  /** Prompt tokens read from the prompt cache (a fraction of the input price). */
  cache_read_per_1k?: number;
  /** Prompt tokens written to the cache with the 5-minute TTL (a premium over the input price). */
  cache_write_per_1k?: number;
  /** Prompt tokens written to the cache with the 1-hour TTL (a larger premium). */
  cache_write_1h_per_1k?: number;
  /**
   * Exact prices of Bedrock's Flex and Priority tiers, where an admin set them (POST /api/pricing);
   * a tier without one costs SERVICE_TIER_PRICE_PERCENT of the Standard price.
   */
  service_tiers?: TierPrices;
}

/** A processing tier's own price: its input and output prices, and its cache prices where given. */
export type TierPrice = Omit<TokenPrice, 'service_tiers'>;

/** The tiers that can carry a price of their own (Standard is the entry's own price). */
export const PRICED_TIERS = ['flex', 'priority'] as const;
export type PricedTier = (typeof PRICED_TIERS)[number];
export type TierPrices = Partial<Record<PricedTier, TierPrice>>;

/** The prices of a model's cache, where it caches. */
export type CachePrice = Required<Pick<TokenPrice, 'cache_read_per_1k' | 'cache_write_per_1k' | 'cache_write_1h_per_1k'>>;

export const DEFAULT_TOKEN_PRICES: Record<'managed' | 'hosted', Record<string, TokenPrice>> = {
  managed: {
    // Claude 4.5 and later: the base id's entry is the global profile's price; a geographic profile
    // (us.) costs 10 % more and has its own entry, which a call through it is priced by.
    'anthropic.claude-sonnet-4-5-20250929-v1:0': { input_per_1k: 0.003, output_per_1k: 0.015 },
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0': { input_per_1k: 0.0033, output_per_1k: 0.0165 },
    'anthropic.claude-haiku-4-5-20251001-v1:0': { input_per_1k: 0.001, output_per_1k: 0.005 },
    'us.anthropic.claude-haiku-4-5-20251001-v1:0': { input_per_1k: 0.0011, output_per_1k: 0.0055 },
    'anthropic.claude-3-haiku-20240307-v1:0': { input_per_1k: 0.00025, output_per_1k: 0.00125 },
    'meta.llama4-maverick-17b-instruct-v1:0': { input_per_1k: 0.00024, output_per_1k: 0.00097 },
    'openai.gpt-oss-120b-1:0': { input_per_1k: 0.00015, output_per_1k: 0.0006 },
    'cohere.embed-v4:0': { input_per_1k: 0.00012, output_per_1k: 0 },
    'amazon.titan-text-express-v1': { input_per_1k: 0.0002, output_per_1k: 0.0006 },
    'amazon.nova-lite-v1:0': { input_per_1k: 0.00006, output_per_1k: 0.00024 },
    'meta.llama3-8b-instruct-v1:0': { input_per_1k: 0.0003, output_per_1k: 0.0006 },
    'mistral.mistral-7b-instruct-v0:2': { input_per_1k: 0.00015, output_per_1k: 0.0002 },
    'cohere.command-r-v1:0': { input_per_1k: 0.0005, output_per_1k: 0.0015 },
    'amazon.titan-embed-text-v2:0': { input_per_1k: 0.00002, output_per_1k: 0 },
  },
  hosted: {
    'meta/llama-3.1-8b-instruct': { input_per_1k: 0.0003, output_per_1k: 0.0003 },
    'meta/llama-3.1-70b-instruct': { input_per_1k: 0.00088, output_per_1k: 0.00088 },
    'mistralai/mixtral-8x7b-instruct-v0.1': { input_per_1k: 0.0006, output_per_1k: 0.0006 },
    'google/gemma-2-9b-it': { input_per_1k: 0.0002, output_per_1k: 0.0002 },
    'nvidia/nemotron-4-340b-instruct': { input_per_1k: 0.0042, output_per_1k: 0.0042 },
    'microsoft/phi-3-mini-128k-instruct': { input_per_1k: 0.0001, output_per_1k: 0.0001 },
  },
};

// The same table by any platform's name: a platform billed by the hour ships none.
const SHIPPED_TOKEN_PRICES: Partial<Record<PlatformName, Record<string, TokenPrice>>> = DEFAULT_TOKEN_PRICES;

/** A platform's shipped per-token prices by model id (none for a platform billed by the hour). */
export const shippedTokenPrices = (platform: PlatformName): Record<string, TokenPrice> => SHIPPED_TOKEN_PRICES[platform] ?? {};

/** Used when a model has no entry: a conservative figure, flagged as an estimate where shown. */
export const FALLBACK_TOKEN_PRICE: TokenPrice = { input_per_1k: 0.001, output_per_1k: 0.002 };

export const DEFAULT_INSTANCE_PRICES: Record<string, number> = {
  'ml.t2.medium': 0.056,
  'ml.m5.large': 0.115,
  'ml.m5.xlarge': 0.23,
  'ml.m5.2xlarge': 0.461,
  'ml.c5.xlarge': 0.204,
  'ml.g4dn.xlarge': 0.736,
  'ml.g5.xlarge': 1.408,
  'ml.g5.2xlarge': 1.515,
  'ml.g5.4xlarge': 2.03,
  'ml.g5.12xlarge': 7.09,
  'ml.g5.48xlarge': 20.36,
  'ml.p4d.24xlarge': 37.688,
};

/** When the shipped table above was taken from the public price pages (its `last_updated`). */
export const DEFAULT_PRICES_AS_OF = '2024-10-01T00:00:00.000Z';

/** The average month AWS bills with: 730 hours. */
export const HOURS_PER_MONTH = 730;

/**
 * The prompt cache's prices of the managed models that cache (Bedrock's pricing page, us-east-1): for
 * Claude a read is a tenth of the input price, a 5-minute write 1.25 times it and a 1-hour write twice
 * it; Amazon Nova reads at a quarter of the input price and writes at the input price (no premium; no
 * 1-hour TTL, so that price is the 5-minute one); a geographic (us.) Claude 4.5 profile's are 10 % up, as
 * its token prices are. Laid over DEFAULT_TOKEN_PRICES; a stored entry's own
 * cache prices win over these.
 */
const DEFAULT_CACHE_PRICES: Partial<Record<PlatformName, Record<string, CachePrice>>> = {
  managed: {
    'amazon.nova-micro-v1:0': { cache_read_per_1k: 0.00000875, cache_write_per_1k: 0.000035, cache_write_1h_per_1k: 0.000035 },
    'amazon.nova-lite-v1:0': { cache_read_per_1k: 0.000015, cache_write_per_1k: 0.00006, cache_write_1h_per_1k: 0.00006 },
    'amazon.nova-pro-v1:0': { cache_read_per_1k: 0.0002, cache_write_per_1k: 0.0008, cache_write_1h_per_1k: 0.0008 },
    'anthropic.claude-3-7-sonnet-20250219-v1:0': { cache_read_per_1k: 0.0003, cache_write_per_1k: 0.00375, cache_write_1h_per_1k: 0.006 },
    'anthropic.claude-sonnet-4-20250514-v1:0': { cache_read_per_1k: 0.0003, cache_write_per_1k: 0.00375, cache_write_1h_per_1k: 0.006 },
    'anthropic.claude-sonnet-4-5-20250929-v1:0': { cache_read_per_1k: 0.0003, cache_write_per_1k: 0.00375, cache_write_1h_per_1k: 0.006 },
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0': { cache_read_per_1k: 0.00033, cache_write_per_1k: 0.004125, cache_write_1h_per_1k: 0.0066 },
    'anthropic.claude-haiku-4-5-20251001-v1:0': { cache_read_per_1k: 0.0001, cache_write_per_1k: 0.00125, cache_write_1h_per_1k: 0.002 },
    'us.anthropic.claude-haiku-4-5-20251001-v1:0': { cache_read_per_1k: 0.00011, cache_write_per_1k: 0.001375, cache_write_1h_per_1k: 0.0022 },
    'anthropic.claude-opus-4-5-20251101-v1:0': { cache_read_per_1k: 0.0005, cache_write_per_1k: 0.00625, cache_write_1h_per_1k: 0.01 },
  },
};

/** A model's shipped cache prices, keyed by platform as the token prices are (the hosted API publishes none). */
export const shippedCachePrice = (platform: PlatformName, modelId: string): CachePrice | undefined => DEFAULT_CACHE_PRICES[platform]?.[modelId];

/**
 * A model with no cache price of its own is priced as Claude's cache is (AWS's pricing page): reads at
 * the input price (no discount assumed), a 5-minute write at 1.25 times it, a 1-hour write at twice it,
 * so a call through a cache nobody priced is never billed under what it may cost.
 */
export const UNPRICED_CACHE = { read: 1, write5m: 1.25, write1h: 2 } as const;

/**
 * What a processing tier costs, in percent of the Standard price, on every token of the call (cached
 * ones included). Whole percents keep the cost exact.
 *
 * UNCONFIRMED (checked 2026-11-28): AWS states the tiers' terms but no factor. The user guide's
 * "Service tiers for optimizing performance and cost" (docs.aws.amazon.com/bedrock/latest/userguide/
 * service-tiers-inference.html) says Priority is "a price premium over standard on-demand pricing" and
 * Flex "a pricing discount", and sends the reader to the pricing page; aws.amazon.com/bedrock/
 * service-tiers says "Standard rate + premium" and "Discounted standard model rate"; the launch
 * announcement (What's New, 2025-11-18) "a discount relative to the Standard tier" and "a premium
 * price". The per-model tier prices are only in the tables of aws.amazon.com/bedrock/pricing, which
 * the copies we could read render without figures, and we found no Price List usage type for either
 * tier. 50 % (Flex) and 175 % (Priority) are therefore this service's working figures, not AWS's: the
 * one documented 50 % is Batch inference's ("Capacity, Limits, and Cost Optimization"), a different
 * mode. They apply only where an admin has not set the model's tier price (TokenPrice
 * `service_tiers`, POST /api/pricing): set those from the pricing page's tables for the models you
 * serve (docs/bedrock.md "Service tiers").
 */
export const SERVICE_TIER_PRICE_PERCENT = { default: 100, flex: 50, priority: 175 } as const;
