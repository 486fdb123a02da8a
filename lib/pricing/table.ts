import { BadRequest } from '../errors';
import type { User } from '../../tables/users';
import { listPriceEntries, putPriceEntries, type PriceSource, type StoredPriceEntry, type StoredTokenPrice } from '../../tables/pricing';
import {
  DEFAULT_INSTANCE_PRICES,
  DEFAULT_PRICES_AS_OF,
  FALLBACK_TOKEN_PRICE,
  HOURS_PER_MONTH,
  PRICED_TIERS,
  shippedCachePrice,
  shippedTokenPrices,
  type PricedTier,
  type TierPrice,
  type TierPrices,
  type TokenPrice,
} from './defaults';
import { invalidatePriceCache, tierPrice } from './service';
import { tokenPricedPlatforms, traitsOf } from '../platforms/registry';
import { INSTANCE_TYPE, PLATFORMS, type PlatformName } from '../../core/vocabulary';
import { serviceTiersOfResource } from '../platforms/capabilities';
import { usdTimes } from '../../core/money';

/**
 * The price table as the API shows and changes it (GET/POST /api/pricing; POST /api/pricing/update
 * is lib/pricing/refresh.ts, so that only that function bundles the Price List and Bedrock clients).
 * Prices in use are the stored entries laid over the shipped defaults; every entry says where it came
 * from (`default`, `admin`, `aws-price-list`) and when.
 */

type EntrySource = PriceSource | 'default';

interface TokenPriceView extends CachePriceView {
  modelId: string;
  per_1k_input_tokens_usd: number;
  per_1k_output_tokens_usd: number;
  source: EntrySource;
  last_updated: string;
  /** Flex and Priority prices in force (a platform with service tiers), where the model offers them or an admin set them. */
  service_tiers?: Partial<Record<PricedTier, TierPriceView>>;
}

/** A tier's prices in force: set by an admin, or the working figure (SERVICE_TIER_PRICE_PERCENT). */
interface TierPriceView extends CachePriceView {
  per_1k_input_tokens_usd: number;
  per_1k_output_tokens_usd: number;
  source: 'admin' | 'default';
}

/** The prompt cache's prices as the API names them; only where the model has them (it caches, or an admin set them). */
interface CachePriceView {
  per_1k_cache_read_tokens_usd?: number;
  per_1k_cache_write_tokens_usd?: number;
  per_1k_cache_write_1h_tokens_usd?: number;
}

/** The API's name of each cache price field of a TokenPrice. */
const CACHE_FIELDS = [
  ['cache_read_per_1k', 'per_1k_cache_read_tokens_usd'],
  ['cache_write_per_1k', 'per_1k_cache_write_tokens_usd'],
  ['cache_write_1h_per_1k', 'per_1k_cache_write_1h_tokens_usd'],
] as const;

/** A price's cache prices in the API's names (those it has). */
function cacheView(price: TokenPrice): CachePriceView {
  return Object.fromEntries(CACHE_FIELDS.filter(([k]) => price[k] !== undefined).map(([k, api]) => [api, price[k]]));
}

/**
 * The Flex and Priority prices in force of a model whose platform has service tiers: each tier the
 * model offers or an admin priced, with the cache prices the Standard view shows or the admin set;
 * none on a platform without tiers.
 */
export function tiersView(platform: PlatformName, modelId: string, price: TokenPrice): TokenPriceView['service_tiers'] {
  if (!traitsOf(platform).serviceTiers) return undefined;
  const offered = serviceTiersOfResource({ type: platform, model_id: modelId });
  const tiers = PRICED_TIERS.filter((t) => offered.includes(t) || price.service_tiers?.[t]);
  if (tiers.length === 0) return undefined;
  return Object.fromEntries(
    tiers.map((tier) => {
      const { price: p, source } = tierPrice(price, tier);
      const set = price.service_tiers?.[tier];
      const shown = CACHE_FIELDS.filter(([k]) => price[k] !== undefined || set?.[k] !== undefined);
      const cache = Object.fromEntries(shown.map(([k, api]) => [api, p[k]]));
      return [tier, { per_1k_input_tokens_usd: p.input_per_1k, per_1k_output_tokens_usd: p.output_per_1k, ...cache, source }];
    }),
  );
}

/** A token price as the API shows it. */
function tokenView(platform: PlatformName, modelId: string, price: TokenPrice, source: EntrySource, at: string): TokenPriceView {
  const tiers = tiersView(platform, modelId, price);
  return {
    modelId,
    per_1k_input_tokens_usd: price.input_per_1k,
    per_1k_output_tokens_usd: price.output_per_1k,
    ...cacheView(price),
    ...(tiers ? { service_tiers: tiers } : {}),
    source,
    last_updated: at,
  };
}

export interface InstancePriceView {
  instanceType: string;
  hourly_usd: number;
  daily_usd: number;
  monthly_estimate_usd: number;
  source: EntrySource;
  last_updated: string;
}

function instanceView(instanceType: string, hourly: number, source: EntrySource, at: string): InstancePriceView {
  return {
    instanceType,
    hourly_usd: hourly,
    daily_usd: usdTimes(hourly, 24),
    monthly_estimate_usd: usdTimes(hourly, HOURS_PER_MONTH),
    source,
    last_updated: at,
  };
}

/** The prices in force: each token-priced platform's by model id, and the instance types' (the platform billed by the hour). */
export interface InUse {
  tokens: Partial<Record<PlatformName, Map<string, TokenPriceView>>>;
  instances: Map<string, InstancePriceView>;
}

export function inUse(stored: StoredPriceEntry[]): InUse {
  const tokens = Object.fromEntries(tokenPricedPlatforms().map((p) => [p, new Map<string, TokenPriceView>()]));
  const table: InUse = { tokens, instances: new Map() };
  for (const platform of tokenPricedPlatforms()) {
    for (const [modelId, p] of Object.entries(shippedTokenPrices(platform))) {
      const cache = shippedCachePrice(platform, modelId);
      tokens[platform]?.set(modelId, tokenView(platform, modelId, { ...cache, ...p }, 'default', DEFAULT_PRICES_AS_OF));
    }
  }
  for (const [type, hourly] of Object.entries(DEFAULT_INSTANCE_PRICES))
    table.instances.set(type, instanceView(type, hourly, 'default', DEFAULT_PRICES_AS_OF));
  for (const e of stored) {
    if (e.kind === 'token') {
      // An entry without cache prices keeps the shipped ones (getTokenPrice prices calls the same way).
      const cache = shippedCachePrice(e.platform, e.modelId);
      tokens[e.platform]?.set(e.modelId, tokenView(e.platform, e.modelId, { ...cache, ...e }, e.source, e.updated_at));
    } else {
      table.instances.set(e.instanceType, instanceView(e.instanceType, e.hourly_usd, e.source, e.updated_at));
    }
  }
  return table;
}

const sorted = <T>(map: Map<string, T>) => [...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, v]) => v);

/** GET /api/pricing */
export async function pricingTable() {
  const table = inUse(await listPriceEntries());
  // Each platform's list: a platform billed by the hour is priced per instance type, the others per model.
  const pricing: Partial<Record<PlatformName, TokenPriceView[] | InstancePriceView[]>> = Object.fromEntries(
    PLATFORMS.map((p) => [p, traitsOf(p).billing === 'per-hour' ? sorted(table.instances) : sorted(table.tokens[p] ?? new Map())]),
  );
  const all: (TokenPriceView | InstancePriceView)[] = Object.values(pricing).flat();
  const sources: Record<EntrySource, number> = { default: 0, admin: 0, 'aws-price-list': 0 };
  for (const e of all) sources[e.source]++;
  const used = (Object.keys(sources) as EntrySource[]).filter((s) => sources[s] > 0);
  return {
    currency: 'USD',
    /** One word when every entry has the same origin, `mixed` otherwise; `sources` has the counts. */
    source: used.length === 1 ? used[0] : 'mixed',
    sources,
    last_updated: all.reduce((latest, e) => (e.last_updated > latest ? e.last_updated : latest), DEFAULT_PRICES_AS_OF),
    pricing,
    fallback: {
      per_1k_input_tokens_usd: FALLBACK_TOKEN_PRICE.input_per_1k,
      per_1k_output_tokens_usd: FALLBACK_TOKEN_PRICE.output_per_1k,
      note: 'Used, and flagged as an estimate, for a managed or hosted model without an entry',
    },
  };
}

export interface PriceEntryInput {
  platform: PlatformName;
  modelId?: string;
  instanceType?: string;
  per_1k_input_tokens_usd?: number;
  per_1k_output_tokens_usd?: number;
  per_1k_cache_read_tokens_usd?: number;
  per_1k_cache_write_tokens_usd?: number;
  per_1k_cache_write_1h_tokens_usd?: number;
  service_tiers?: Partial<Record<PricedTier, PriceInput>>;
  hourly_usd?: number;
}

/** A token price as the API takes it (an entry's, or one tier's). */
type PriceInput = Required<Pick<PriceEntryInput, 'per_1k_input_tokens_usd' | 'per_1k_output_tokens_usd'>> &
  Pick<PriceEntryInput, (typeof CACHE_FIELDS)[number][1]>;

/** A token price from the API's names to the stored ones. */
function fromInput(input: PriceInput): TierPrice {
  return {
    input_per_1k: input.per_1k_input_tokens_usd,
    output_per_1k: input.per_1k_output_tokens_usd,
    ...Object.fromEntries(CACHE_FIELDS.filter(([, api]) => input[api] !== undefined).map(([k, api]) => [k, input[api]])),
  };
}

/** The tier prices an entry sets, stored; undefined where it sets none. */
function tiersFromInput(tiers: PriceEntryInput['service_tiers']): TierPrices | undefined {
  const set = PRICED_TIERS.filter((t) => tiers?.[t]);
  return set.length ? Object.fromEntries(set.map((t) => [t, fromInput(tiers?.[t] as PriceInput)])) : undefined;
}

function toStoredEntry(input: PriceEntryInput, i: number, by: string, at: string): StoredPriceEntry {
  const where = `entries.${i}`;
  const present = (k: keyof PriceEntryInput) => input[k] !== undefined;
  // A platform billed by the instance-hour is priced per instance type; the others per token.
  if (traitsOf(input.platform).billing === 'per-hour') {
    const stray = (
      ['modelId', 'per_1k_input_tokens_usd', 'per_1k_output_tokens_usd', ...CACHE_FIELDS.map(([, api]) => api), 'service_tiers'] as const
    ).find(present);
    if (stray) throw new BadRequest(`Invalid field '${where}.${stray}': ${input.platform} entries take instanceType and hourly_usd`);
    if (!input.instanceType) throw new BadRequest(`Missing required field '${where}.instanceType'`);
    if (!INSTANCE_TYPE.test(input.instanceType))
      throw new BadRequest(`Invalid field '${where}.instanceType': expected an instance type such as ml.g5.xlarge`);
    if (input.hourly_usd === undefined) throw new BadRequest(`Missing required field '${where}.hourly_usd'`);
    return { kind: 'instance', instanceType: input.instanceType, hourly_usd: input.hourly_usd, source: 'admin', updated_at: at, updated_by: by };
  }
  const stray = (['instanceType', 'hourly_usd'] as const).find(present);
  if (stray)
    throw new BadRequest(
      `Invalid field '${where}.${stray}': ${input.platform} entries take modelId, per_1k_input_tokens_usd and per_1k_output_tokens_usd`,
    );
  for (const k of ['modelId', 'per_1k_input_tokens_usd', 'per_1k_output_tokens_usd'] as const) {
    if (!present(k)) throw new BadRequest(`Missing required field '${where}.${k}'`);
  }
  // Only a platform with processing tiers prices them (the request check refuses the field elsewhere too).
  if (present('service_tiers') && !traitsOf(input.platform).serviceTiers)
    throw new BadRequest(`Invalid field '${where}.service_tiers': ${input.platform} entries take no service tier prices`);
  const tiers = tiersFromInput(input.service_tiers);
  return {
    kind: 'token',
    // Billed per token: the per-hour platform took the branch above.
    platform: input.platform as StoredTokenPrice['platform'],
    modelId: input.modelId as string,
    ...fromInput(input as PriceInput),
    ...(tiers ? { service_tiers: tiers } : {}),
    source: 'admin',
    updated_at: at,
    updated_by: by,
  };
}

export const entryKey = (e: StoredPriceEntry) => (e.kind === 'token' ? `${e.platform}#${e.modelId}` : `dedicated#${e.instanceType}`);

/** POST /api/pricing: all entries are checked first, then written in one go (all or nothing). */
export async function upsertPrices(entries: PriceEntryInput[], user: User, now = new Date()) {
  const at = now.toISOString();
  const stored = entries.map((e, i) => toStoredEntry(e, i, user.id, at));
  const seen = new Set<string>();
  for (const e of stored) {
    const key = entryKey(e);
    if (seen.has(key)) throw new BadRequest(`Duplicate entry for ${key.replace('#', ' ')}`);
    seen.add(key);
  }
  await putPriceEntries(stored);
  invalidatePriceCache();
  return {
    message: `${stored.length} price ${stored.length === 1 ? 'entry' : 'entries'} saved`,
    updated: stored.length,
    last_updated: at,
    entries: stored.map((e) =>
      e.kind === 'token'
        ? { platform: e.platform, ...tokenView(e.platform, e.modelId, { ...shippedCachePrice(e.platform, e.modelId), ...e }, e.source, at) }
        : { platform: 'dedicated', ...instanceView(e.instanceType, e.hourly_usd, e.source, at) },
    ),
  };
}
