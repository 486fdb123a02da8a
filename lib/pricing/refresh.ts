import { mapLimit } from '../concurrency';
import { config } from '../../core/config';
import { managed } from '../platforms/managed/catalogue';
import type { User } from '../../tables/users';
import { listPriceEntries, putPriceEntries, type StoredPriceEntry } from '../../tables/pricing';
import { getProducts, instancePrices, marketplacePricesByModelName, tokenPricesByModelName, type ListedTokenPrices } from './price-list';
import { invalidatePriceCache } from './service';
import { entryKey, inUse } from './table';

/** A system profile's id is its geography (or `global`) before the model's id. */
const GEOGRAPHIC = /^(us|eu|apac|jp|au|ca|us-gov)\./;
const baseModelOf = (key: string) => key.replace(/^(global|us|eu|apac|jp|au|ca|us-gov)\.(?=[a-z0-9-]+\.)/, '');

/** The prompt cache's prices: the stored entry's field, and the API's name of it. */
const CACHE_FIELDS = [
  ['cache_read_per_1k', 'per_1k_cache_read_tokens_usd'],
  ['cache_write_per_1k', 'per_1k_cache_write_tokens_usd'],
  ['cache_write_1h_per_1k', 'per_1k_cache_write_1h_tokens_usd'],
] as const;

export interface PriceChange {
  platform: 'managed' | 'dedicated';
  key: string;
  field:
    | 'per_1k_input_tokens_usd'
    | 'per_1k_output_tokens_usd'
    | 'per_1k_cache_read_tokens_usd'
    | 'per_1k_cache_write_tokens_usd'
    | 'per_1k_cache_write_1h_tokens_usd'
    | 'hourly_usd';
  old: number | null;
  new: number;
}

/**
 * POST /api/pricing/update: reads the region's SageMaker hosting and Bedrock on-demand token prices,
 * the prompt cache's read and write (5-minute, 1-hour) prices included, from the AWS Price List API
 * (AmazonBedrock, and AmazonBedrockFoundationModels for the Claude models sold through the
 * Marketplace; a system profile's entry, `us.<model>` or `global.<model>`, gets its own scope's
 * price) and stores them. Entries an admin set by hand are kept unless
 * `overrideAdminEntries` (a negotiated price must not silently revert to list price). Hosted prices
 * are not in the AWS Price List; they stay as they are. Managed models are the ones in the table
 * (shipped defaults and stored entries); an admin adds a new model with POST /api/pricing.
 */
export async function refreshFromPriceList(user: User, options: { overrideAdminEntries?: boolean } = {}, now = new Date()) {
  const at = now.toISOString();
  const region = config.cloud.region;
  const stored = await listPriceEntries();
  const current = inUse(stored);
  const storedSource = new Map(stored.map((e) => [entryKey(e), e.source]));

  const [hosting, tokens, marketplace] = await Promise.all([
    getProducts('AmazonSageMaker', { regionCode: region, productFamily: 'ML Instance' }).then(instancePrices),
    getProducts('AmazonBedrock', { regionCode: region }).then(tokenPricesByModelName),
    getProducts('AmazonBedrockFoundationModels', { regionCode: region }).then(marketplacePricesByModelName),
  ]);

  // Bedrock prices are keyed by display name and the table by model id (or a system profile's id), so
  // each priced model's name is looked up (GetFoundationModel). A model gets into the table by an
  // admin entry first.
  const modelIds = [...(current.tokens.managed?.keys() ?? [])].sort();
  const infos = await mapLimit(modelIds, 8, (id) => managed.getModel(baseModelOf(id)));
  const listedPrice = (modelId: string, modelName: string): ListedTokenPrices | undefined => {
    const sold = marketplace.get(modelName);
    if (!sold) return tokens.get(modelName);
    // A geographic profile's calls (and the Region's) are priced apart from the global profile's (the base price).
    const [first, second] = GEOGRAPHIC.test(modelId) ? [sold.regional, sold.global] : [sold.global, sold.regional];
    return first.input_per_1k !== undefined ? first : second;
  };

  const changes: PriceChange[] = [];
  const keptAdmin: string[] = [];
  const notInPriceList: string[] = [];
  const writes: StoredPriceEntry[] = [];
  const note = (platform: PriceChange['platform'], key: string, field: PriceChange['field'], old: number | undefined, value: number) => {
    if (old !== value) changes.push({ platform, key, field, old: old ?? null, new: value });
  };

  for (const [type, hourly] of [...hosting.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (storedSource.get(`dedicated#${type}`) === 'admin' && !options.overrideAdminEntries) {
      keptAdmin.push(`dedicated ${type}`);
      continue;
    }
    note('dedicated', type, 'hourly_usd', current.instances.get(type)?.hourly_usd, hourly);
    writes.push({ kind: 'instance', instanceType: type, hourly_usd: hourly, source: 'aws-price-list', updated_at: at, updated_by: user.id });
  }

  modelIds.forEach((modelId, i) => {
    const info = infos[i];
    const listed = info ? listedPrice(modelId, info.modelName) : undefined;
    if (!listed || (listed.input_per_1k === undefined && listed.output_per_1k === undefined)) {
      notInPriceList.push(`managed ${modelId}`);
      return;
    }
    if (storedSource.get(`managed#${modelId}`) === 'admin' && !options.overrideAdminEntries) {
      keptAdmin.push(`managed ${modelId}`);
      return;
    }
    const old = current.tokens.managed?.get(modelId);
    // A model priced for one direction only (embeddings have no output tokens) keeps the other as it was;
    // a cache price the list lacks (Nova has no 1-hour TTL) keeps the one in force.
    const input = listed.input_per_1k ?? old?.per_1k_input_tokens_usd ?? 0;
    const output = listed.output_per_1k ?? old?.per_1k_output_tokens_usd ?? 0;
    note('managed', modelId, 'per_1k_input_tokens_usd', old?.per_1k_input_tokens_usd, input);
    note('managed', modelId, 'per_1k_output_tokens_usd', old?.per_1k_output_tokens_usd, output);
    const cache: Partial<Record<(typeof CACHE_FIELDS)[number][0], number>> = {};
    for (const [field, shown] of CACHE_FIELDS) {
      const value = listed[field] ?? old?.[shown];
      if (value === undefined) continue;
      if (listed[field] !== undefined) note('managed', modelId, shown, old?.[shown], value);
      cache[field] = value;
    }
    writes.push({
      kind: 'token',
      platform: 'managed',
      modelId,
      input_per_1k: input,
      output_per_1k: output,
      ...cache,
      source: 'aws-price-list',
      updated_at: at,
      updated_by: user.id,
    });
  });

  await putPriceEntries(writes);
  invalidatePriceCache();
  const changedKeys = new Set(changes.map((c) => `${c.platform}#${c.key}`));
  return {
    message: `Prices refreshed from the AWS Price List API: ${changedKeys.size} changed, ${writes.length - changedKeys.size} unchanged`,
    source: 'aws-price-list',
    region,
    last_updated: at,
    summary: {
      checked: writes.length,
      changed: changedKeys.size,
      unchanged: writes.length - changedKeys.size,
      kept_admin_overrides: keptAdmin.length,
      not_in_price_list: notInPriceList.length,
    },
    changes,
    kept_admin_overrides: keptAdmin,
    not_in_price_list: notInPriceList,
    not_covered: 'Hosted model prices are not published in the AWS Price List; set them with POST /api/pricing',
  };
}
