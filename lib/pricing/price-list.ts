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
 *     modelName, not its id), attributes.inferenceType "Input tokens" / "Output tokens",
 *     unit "1K tokens" (some products are quoted per "1M tokens").
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

/** Per-1k input and output token prices per Bedrock model display name. */
export function tokenPricesByModelName(products: PriceListProduct[]): Map<string, { input_per_1k?: number; output_per_1k?: number }> {
  const prices = new Map<string, { input_per_1k?: number; output_per_1k?: number }>();
  for (const p of products) {
    const name = p.attributes.model;
    const kind = (p.attributes.inferenceType ?? '').toLowerCase();
    const per = /^1m\b/i.test(p.unit) ? 1000 : /^1k\b/i.test(p.unit) ? 1 : undefined;
    if (!name || per === undefined) continue;
    const entry = prices.get(name) ?? {};
    const price = Math.round((p.usd / per) * 1e9) / 1e9;
    if (kind.startsWith('input')) entry.input_per_1k ??= price;
    else if (kind.startsWith('output')) entry.output_per_1k ??= price;
    else continue;
    prices.set(name, entry);
  }
  return prices;
}

const MAX_PAGES = 50;

/** Every product of a service in a region, all pages. Failures are UpstreamErrors (502). */
export async function getProducts(serviceCode: 'AmazonSageMaker' | 'AmazonBedrock', filters: Record<string, string>): Promise<PriceListProduct[]> {
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
