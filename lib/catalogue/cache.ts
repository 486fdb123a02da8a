/**
 * Read-through caching of model catalogues in the table (tables/catalogue.ts). Catalogues change a
 * few times a month, while listing the dedicated one costs dozens of SageMaker calls; so a fresh
 * cached copy is served as is, and the platform is asked only when the copy has expired (after
 * MODEL_CACHE_TTL_SECONDS), when an admin syncs, or when a caller asks for the raw upstream answer.
 *
 * When the platform fails and an expired copy is still in the table, the expired copy is served
 * (marked `stale`) rather than failing the request: a catalogue from an hour ago is more useful
 * than an error. With no copy at all, the platform's UpstreamError goes to the caller.
 *
 * The cache is an optimisation only: if the table cannot be read or written, the catalogue is
 * fetched live and the failure is logged.
 */
import { config } from '../../core/config';
import { logger } from '../../core/observability';
import type { PlatformName } from '../platforms/types';
import { getCatalogue, putCatalogue, type CachedCatalogue, type CatalogueVariant } from '../../tables/catalogue';

/** Where an answer came from: a fresh cached copy, the platform just now, or an expired copy. */
export type CatalogueOrigin = 'cache' | 'live' | 'stale';

export interface Fetched<T> {
  entries: T[];
  complete: boolean;
}

export interface CatalogueResult<T> extends Fetched<T> {
  origin: CatalogueOrigin;
  fetchedAt: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

async function safeRead<T>(platform: PlatformName, variant: CatalogueVariant): Promise<CachedCatalogue<T> | undefined> {
  if (config.catalogue.cacheTtlSeconds <= 0) return undefined;
  try {
    return await getCatalogue<T>(platform, variant);
  } catch (err) {
    logger.warn({ message: 'catalogue cache read failed; fetching live', platform, variant, error: (err as Error).name });
    return undefined;
  }
}

async function store<T>(platform: PlatformName, variant: CatalogueVariant, fetched: Fetched<T>, fetchedAt: string): Promise<void> {
  if (config.catalogue.cacheTtlSeconds <= 0) return;
  try {
    await putCatalogue({ platform, variant, ...fetched, fetchedAt, expiresAt: nowSeconds() + config.catalogue.cacheTtlSeconds });
  } catch (err) {
    logger.warn({ message: 'catalogue cache write failed', platform, variant, error: (err as Error).name });
  }
}

/**
 * The catalogue variant from the cache when fresh, else from the platform (and cached). `live`
 * skips the cached copy, and then never falls back to a stale one either: the caller asked for the
 * platform's answer.
 */
export async function readThrough<T>(
  platform: PlatformName,
  variant: CatalogueVariant,
  fetchLive: () => Promise<Fetched<T>>,
  options: { live?: boolean } = {},
): Promise<CatalogueResult<T>> {
  const cached = await safeRead<T>(platform, variant);
  if (cached && !options.live && cached.expiresAt > nowSeconds()) {
    return { entries: cached.entries, complete: cached.complete, origin: 'cache', fetchedAt: cached.fetchedAt };
  }
  try {
    const fetched = await fetchLive();
    const fetchedAt = new Date().toISOString();
    await store(platform, variant, fetched, fetchedAt);
    return { ...fetched, origin: 'live', fetchedAt };
  } catch (err) {
    if (cached && !options.live) {
      logger.warn({
        message: 'platform failed; serving the stale catalogue',
        platform,
        variant,
        fetchedAt: cached.fetchedAt,
        reason: (err as Error).message,
      });
      return { entries: cached.entries, complete: cached.complete, origin: 'stale', fetchedAt: cached.fetchedAt };
    }
    throw err;
  }
}

export interface CatalogueChanges {
  total: number;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/** JSON with sorted keys: DynamoDB does not keep the order of a map's attributes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function compareCatalogues<T>(before: T[], after: T[], key: (entry: T) => string): CatalogueChanges {
  const old = new Map(before.map((e) => [key(e), canonical(e)]));
  const changes: CatalogueChanges = { total: after.length, added: 0, removed: 0, changed: 0, unchanged: 0 };
  const seen = new Set<string>();
  for (const entry of after) {
    const k = key(entry);
    seen.add(k);
    const previous = old.get(k);
    if (previous === undefined) changes.added++;
    else if (previous === canonical(entry)) changes.unchanged++;
    else changes.changed++;
  }
  for (const k of old.keys()) if (!seen.has(k)) changes.removed++;
  return changes;
}

/** Fetches a variant from the platform whatever the cache holds, stores it, and says what changed. */
export async function refresh<T>(
  platform: PlatformName,
  variant: CatalogueVariant,
  fetchLive: () => Promise<Fetched<T>>,
  key: (entry: T) => string,
): Promise<{ entries: T[]; changes: CatalogueChanges }> {
  const previous = await safeRead<T>(platform, variant);
  const fetched = await fetchLive();
  await store(platform, variant, fetched, new Date().toISOString());
  return { entries: fetched.entries, changes: compareCatalogues(previous?.entries ?? [], fetched.entries, key) };
}

/** The least fresh of several origins, for a response built from more than one cached variant. */
export function worstOrigin(origins: CatalogueOrigin[]): CatalogueOrigin {
  if (origins.includes('stale')) return 'stale';
  if (origins.includes('live')) return 'live';
  return 'cache';
}

/** Response headers that say where a catalogue came from, without changing the spec's body shape. */
export function originHeaders(result: { origin: CatalogueOrigin; fetchedAt: string }): Record<string, string> {
  return { 'X-Catalogue-Source': result.origin, 'X-Catalogue-Fetched-At': result.fetchedAt };
}
