import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from './client';
import { transactWrite, type TransactItems } from './transactions';

/**
 * Price entries: admin upserts and AWS Price List refreshes, laid over the shipped defaults
 * (lib/pricing/defaults.ts). One small partition, read whole.
 *
 *   PK PRICING   SK TOKEN#<managed|hosted>#<modelId>   input_per_1k, output_per_1k, cache_read_per_1k?,
 *                                                       cache_write_per_1k?, cache_write_1h_per_1k?, service_tiers?,
 *                                                       source, updated_at
 *     service_tiers: { flex?, priority? }, each { input_per_1k, output_per_1k, cache_*_per_1k? } (admin-set tier prices)
 *   PK PRICING   SK INSTANCE#<instanceType>            hourly_usd, source, updated_at
 */
const PRICING_PK = 'PRICING';

/** Where a stored price came from. */
export type PriceSource = 'admin' | 'aws-price-list';

export interface StoredTokenPrice {
  kind: 'token';
  platform: 'managed' | 'hosted';
  modelId: string;
  input_per_1k: number;
  output_per_1k: number;
  /** The prompt cache's prices, where the entry sets them (else the shipped ones apply). */
  cache_read_per_1k?: number;
  cache_write_per_1k?: number;
  cache_write_1h_per_1k?: number;
  /** Flex and Priority prices an admin set (else the service's working figures apply). */
  service_tiers?: Partial<Record<'flex' | 'priority', TierPriceItem>>;
  source: PriceSource;
  updated_at: string;
  updated_by?: string;
}

/** A processing tier's price, as stored inside its token entry. */
interface TierPriceItem {
  input_per_1k: number;
  output_per_1k: number;
  cache_read_per_1k?: number;
  cache_write_per_1k?: number;
  cache_write_1h_per_1k?: number;
}

/** The optional cache prices of a token entry, as stored. */
const CACHE_PRICE_FIELDS = ['cache_read_per_1k', 'cache_write_per_1k', 'cache_write_1h_per_1k'] as const;

interface StoredInstancePrice {
  kind: 'instance';
  instanceType: string;
  hourly_usd: number;
  source: PriceSource;
  updated_at: string;
  updated_by?: string;
}

export type StoredPriceEntry = StoredTokenPrice | StoredInstancePrice;

const tokenSk = (platform: string, modelId: string) => `TOKEN#${platform}#${modelId}`;
const instanceSk = (instanceType: string) => `INSTANCE#${instanceType}`;

function fromItem(item: Record<string, unknown>): StoredPriceEntry | undefined {
  const sk = String(item.SK);
  const common = { source: item.source as PriceSource, updated_at: item.updated_at as string, updated_by: item.updated_by as string | undefined };
  if (sk.startsWith('TOKEN#')) {
    const rest = sk.slice('TOKEN#'.length);
    const cut = rest.indexOf('#');
    return {
      kind: 'token',
      platform: rest.slice(0, cut) as 'managed' | 'hosted',
      modelId: rest.slice(cut + 1),
      input_per_1k: Number(item.input_per_1k),
      output_per_1k: Number(item.output_per_1k),
      ...Object.fromEntries(CACHE_PRICE_FIELDS.filter((k) => item[k] !== undefined).map((k) => [k, Number(item[k])])),
      ...(item.service_tiers ? { service_tiers: item.service_tiers } : {}),
      ...common,
    };
  }
  if (sk.startsWith('INSTANCE#')) {
    return { kind: 'instance', instanceType: sk.slice('INSTANCE#'.length), hourly_usd: Number(item.hourly_usd), ...common };
  }
  return undefined;
}

export async function listPriceEntries(): Promise<StoredPriceEntry[]> {
  const entries: StoredPriceEntry[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PRICING_PK }, ExclusiveStartKey }),
    );
    for (const item of page.Items ?? []) {
      const entry = fromItem(item);
      if (entry) entries.push(entry);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return entries;
}

function toItem(entry: StoredPriceEntry): Record<string, unknown> {
  const { kind: _kind, ...rest } = entry;
  if (entry.kind === 'token') {
    const { platform: _p, modelId: _m, ...values } = rest as Omit<StoredTokenPrice, 'kind'>;
    return { PK: PRICING_PK, SK: tokenSk(entry.platform, entry.modelId), entity: 'price', ...values };
  }
  const { instanceType: _i, ...values } = rest as Omit<StoredInstancePrice, 'kind'>;
  return { PK: PRICING_PK, SK: instanceSk(entry.instanceType), entity: 'price', ...values };
}

/** DynamoDB's limit of items per transaction. */
const MAX_ENTRIES_PER_WRITE = 100;

/** Upserts entries all or nothing (callers pass at most MAX_ENTRIES_PER_WRITE, each key once). */
export async function putPriceEntries(entries: StoredPriceEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += MAX_ENTRIES_PER_WRITE) {
    const items: TransactItems = entries.slice(i, i + MAX_ENTRIES_PER_WRITE).map((e) => ({ Put: { TableName: TABLE, Item: toItem(e) } }));
    await transactWrite(items);
  }
}
