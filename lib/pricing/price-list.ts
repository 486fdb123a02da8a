import { GetProductsCommand, type Filter } from '@aws-sdk/client-pricing';
import { UpstreamError } from '../errors';
import { pricingClient } from './client';

/**
 * Reading the AWS Price List Query API (GetProducts). Every PriceList entry is a whole product
 * document serialised as JSON: product.attributes describe what is sold, terms.OnDemand the price.
 *
 *   SageMaker real-time hosting: productFamily "ML Instance", attributes.component "Hosting",
 *     attributes.instanceName / instanceType "ml.g5.xlarge", unit "Hrs".
 *   Bedrock on-demand tokens: attributes.model is the model's display name (GetFoundationModel's
 *     modelName, not its id), attributes.inferenceType "Input tokens" / "Output tokens" /
 *     "Prompt cache read input tokens" / "Prompt cache write input tokens", unit "1K tokens" (some
 *     products are quoted per "1M tokens").
 *   Current Claude (service code AmazonBedrockFoundationModels, sold through the Marketplace):
 *     attributes.servicename "<model name> (Amazon Bedrock Edition)", the kind of token in the
 *     usagetype ("USE1-MP:USE1_CacheWrite1hInputTokenCount_Global-Units"), per million tokens.
 */

export interface PriceListProduct {
  productFamily: string;
  attributes: Record<string, string>;
  /** The first on-demand price dimension. */
  usd: number;
  unit: string;
}

function parseDocument(raw: unknown): Record<string, any> | undefined {
  // The SDK hands the documents over as strings (or String-like lazy JSON wrappers).
  if (raw !== null && typeof raw === 'object' && !(raw instanceof String)) return raw as Record<string, any>;
  try {
    return JSON.parse(String(raw)) as Record<string, any>;
  } catch {
    return undefined;
  }
}

/** One product document as the Price List API sends it; undefined when it carries no on-demand USD price. */
export function parseProduct(raw: unknown): PriceListProduct | undefined {
  const doc = parseDocument(raw);
  const product = doc?.product;
  if (!product || typeof product !== 'object') return undefined;
  const terms = Object.values((doc?.terms?.OnDemand ?? {}) as Record<string, any>);
  for (const term of terms) {
    for (const dimension of Object.values((term?.priceDimensions ?? {}) as Record<string, any>)) {
      const usd = Number(dimension?.pricePerUnit?.USD);
      if (Number.isFinite(usd)) {
        return { productFamily: String(product.productFamily ?? ''), attributes: product.attributes ?? {}, usd, unit: String(dimension.unit ?? '') };
      }
    }
  }
  return undefined;
}

/** Hourly on-demand hosting price per SageMaker instance type. */
export function instancePrices(products: PriceListProduct[]): Map<string, number> {
  const prices = new Map<string, number>();
  for (const p of products) {
    const type = p.attributes.instanceName ?? p.attributes.instanceType;
    const hosting = (p.attributes.component ?? '').toLowerCase() === 'hosting' || /-Host:/.test(p.attributes.usagetype ?? '');
    if (!type?.startsWith('ml.') || !hosting || !/^hrs?$/i.test(p.unit)) continue;
    if (!prices.has(type)) prices.set(type, p.usd);
  }
  return prices;
}

/** A model's per-1k token prices as the Price List shows them (those it has). */
export interface ListedTokenPrices {
  input_per_1k?: number;
  output_per_1k?: number;
  cache_read_per_1k?: number;
  cache_write_per_1k?: number;
  cache_write_1h_per_1k?: number;
}

const per1k = (usd: number, per: number) => Math.round((usd / per) * 1e9) / 1e9;

/** Which price of ListedTokenPrices an AmazonBedrock product is, by its inferenceType (AWS's words). */
function bedrockField(p: PriceListProduct): keyof ListedTokenPrices | undefined {
  const kind = (p.attributes.inferenceType ?? '').toLowerCase();
  if (kind === 'prompt cache read input tokens') return 'cache_read_per_1k';
  if (kind === 'prompt cache write input tokens')
    return /-1-hour$/i.test(p.attributes.usagetype ?? '') ? 'cache_write_1h_per_1k' : 'cache_write_per_1k';
  if (kind.startsWith('input')) return 'input_per_1k';
  if (kind.startsWith('output')) return 'output_per_1k';
  return undefined;
}

/** Per-1k token and prompt cache prices per Bedrock model display name (service code AmazonBedrock). */
export function tokenPricesByModelName(products: PriceListProduct[]): Map<string, ListedTokenPrices> {
  const prices = new Map<string, ListedTokenPrices>();
  for (const p of products) {
    const name = p.attributes.model;
    const per = /^1m\b/i.test(p.unit) ? 1000 : /^1k\b/i.test(p.unit) ? 1 : undefined;
    const field = bedrockField(p);
    if (!name || per === undefined || !field) continue;
    const entry = prices.get(name) ?? {};
    entry[field] ??= per1k(p.usd, per);
    prices.set(name, entry);
  }
  return prices;
}

/** The marketplace usagetype's kind of token (AmazonBedrockFoundationModels), and whether it is the global profile's price. */
const MARKETPLACE_USAGE =
  /MP:[A-Za-z0-9]+_(CacheWrite1hInputTokenCount|CacheWriteInputTokenCount|CacheReadInputTokenCount|InputTokenCount|OutputTokenCount)(_Global)?-Units$/;
const MARKETPLACE_FIELD: Record<string, keyof ListedTokenPrices> = {
  InputTokenCount: 'input_per_1k',
  OutputTokenCount: 'output_per_1k',
  CacheReadInputTokenCount: 'cache_read_per_1k',
  CacheWriteInputTokenCount: 'cache_write_per_1k',
  CacheWrite1hInputTokenCount: 'cache_write_1h_per_1k',
};

/**
 * Prices of the models sold through the AWS Marketplace (service code AmazonBedrockFoundationModels:
 * current Claude), by model display name (`servicename` less " (Amazon Bedrock Edition)"): `global`
 * through the global profile, `regional` in the Region and through its geographic profiles. Per
 * million tokens in the list, per 1k here. Batch, reserved and other tiers' usagetypes do not match.
 */
export function marketplacePricesByModelName(products: PriceListProduct[]): Map<string, { global: ListedTokenPrices; regional: ListedTokenPrices }> {
  const prices = new Map<string, { global: ListedTokenPrices; regional: ListedTokenPrices }>();
  for (const p of products) {
    const match = MARKETPLACE_USAGE.exec(p.attributes.usagetype ?? '');
    const name = (p.attributes.servicename ?? '').replace(/\s*\(Amazon Bedrock Edition\)\s*$/i, '');
    if (!match || !name) continue;
    const entry = prices.get(name) ?? { global: {}, regional: {} };
    const scope = match[2] ? entry.global : entry.regional;
    scope[MARKETPLACE_FIELD[match[1] as string] as keyof ListedTokenPrices] ??= per1k(p.usd, 1000);
    prices.set(name, entry);
  }
  return prices;
}

const MAX_PAGES = 50;

/** Every product of a service in a region, all pages. Failures are UpstreamErrors (502). */
export async function getProducts(
  serviceCode: 'AmazonSageMaker' | 'AmazonBedrock' | 'AmazonBedrockFoundationModels',
  filters: Record<string, string>,
): Promise<PriceListProduct[]> {
  const Filters: Filter[] = Object.entries(filters).map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));
  const products: PriceListProduct[] = [];
  let NextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    let out;
    try {
      out = await pricingClient.send(
        new GetProductsCommand({ ServiceCode: serviceCode, Filters, FormatVersion: 'aws_v1', MaxResults: 100, NextToken }),
      );
    } catch (err) {
      const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
      throw new UpstreamError(
        'pricing',
        `The AWS Price List API did not answer for ${serviceCode}: ${e.name ?? 'Error'}${e.$metadata?.httpStatusCode ? ` (HTTP ${e.$metadata.httpStatusCode})` : ''}`,
        'failed',
        undefined,
        e.$metadata?.httpStatusCode,
      );
    }
    for (const raw of (out.PriceList ?? []) as unknown[]) {
      const product = parseProduct(raw);
      if (product) products.push(product);
    }
    NextToken = out.NextToken;
    if (!NextToken) break;
  }
  return products;
}
