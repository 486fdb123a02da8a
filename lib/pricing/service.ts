import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from '../../tables/client';
import { DEFAULT_INSTANCE_PRICES, DEFAULT_TOKEN_PRICES, FALLBACK_TOKEN_PRICE, type TokenPrice } from './defaults';

/**
 * Price lookups for costs and plans: stored entries (admin upserts and Price List refreshes, in the
 * table under PK PRICING) over the shipped defaults. The table is tiny and changes rarely, so it is
 * read once and kept for a minute per warm container.
 *
 *   PK PRICING   SK TOKEN#<managed|hosted>#<modelId>   input_per_1k, output_per_1k, source, updated_at
 *   PK PRICING   SK INSTANCE#<instanceType>            hourly_usd, source, updated_at
 */
export const PRICING_PK = 'PRICING';
const CACHE_MS = 60_000;

export interface StoredPrices {
  tokens: Record<string, TokenPrice & { source: string; updated_at: string }>;
  instances: Record<string, { hourly_usd: number; source: string; updated_at: string }>;
}

let cache: { at: number; prices: Promise<StoredPrices> } | undefined;

export function invalidatePriceCache(): void {
  cache = undefined;
}

async function loadStored(): Promise<StoredPrices> {
  const prices: StoredPrices = { tokens: {}, instances: {} };
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PRICING_PK }, ExclusiveStartKey }),
    );
    for (const item of page.Items ?? []) {
      const sk = item.SK as string;
      if (sk.startsWith('TOKEN#')) {
        prices.tokens[sk.slice(6)] = { input_per_1k: item.input_per_1k, output_per_1k: item.output_per_1k, source: item.source, updated_at: item.updated_at };
      } else if (sk.startsWith('INSTANCE#')) {
        prices.instances[sk.slice(9)] = { hourly_usd: item.hourly_usd, source: item.source, updated_at: item.updated_at };
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
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

export async function getTokenPrice(platform: 'managed' | 'hosted', modelId: string): Promise<ResolvedTokenPrice> {
  const stored = (await storedPrices()).tokens[`${platform}#${modelId}`];
  if (stored) return { input_per_1k: stored.input_per_1k, output_per_1k: stored.output_per_1k, source: 'stored' };
  const shipped = DEFAULT_TOKEN_PRICES[platform][modelId];
  if (shipped) return { ...shipped, source: 'default' };
  return { ...FALLBACK_TOKEN_PRICE, source: 'fallback' };
}

/** Hourly USD price of one instance; undefined for an instance type with no price (unknown type). */
export async function getInstancePrice(instanceType: string): Promise<number | undefined> {
  const stored = (await storedPrices()).instances[instanceType];
  return stored?.hourly_usd ?? DEFAULT_INSTANCE_PRICES[instanceType];
}

/** Cost in USD of a chat turn at the given price, rounded to a millionth of a dollar. */
export function tokenCost(price: TokenPrice, tokensIn: number, tokensOut: number): number {
  return Math.round(((tokensIn / 1000) * price.input_per_1k + (tokensOut / 1000) * price.output_per_1k) * 1e6) / 1e6;
}
