/**
 * The dedicated catalogue (GET /api/models/dedicated): the public model hub, the account's model
 * registry, or both.
 *
 * Each source is cached as its newest CACHE_LIMIT entries (the spec's maximum page). A search is
 * answered from that copy when it holds the whole source (it matches the display name and the
 * model's own name, without regard to case); otherwise the platform is searched by name
 * (NameContains) and that answer is cached under its own variant.
 */
import { logger } from '../../core/observability';
import { dedicatedEndpoints } from '../platforms/dedicated/endpoints';
import { dedicatedCatalogue } from '../platforms/dedicated/catalogue';
import type { DedicatedModelEntry, DedicatedSource } from '../platforms/types';
import { dropCachedSearches, type CatalogueVariant } from '../../tables/catalogue';
import { readThrough, refresh, worstOrigin, type CatalogueChanges, type CatalogueOrigin, type CatalogueResult } from './cache';

const DEDICATED_MAX = 50;
const CACHE_LIMIT = DEDICATED_MAX;

type Source = Exclude<DedicatedSource, 'all'>;
const SOURCES: Source[] = ['public', 'account'];

const sourceVariant = (source: Source): CatalogueVariant => ({ kind: 'source', source });
const searchVariant = (source: Source, search: string): CatalogueVariant => ({ kind: 'search', source, search });

function fetchSource(source: Source, search?: string) {
  return async () => {
    const entries = await dedicatedCatalogue.listModels({ source, search, max: CACHE_LIMIT });
    // Fewer than asked for means the platform has no more.
    return { entries, complete: entries.length < CACHE_LIMIT };
  };
}

/** The model's own name inside its ARN: hub-content/<hub>/Model/<name>/<v>, or model-package/<name>[/<v>]. */
function modelName(arn: string): string {
  const resource = arn.split(':').slice(5).join(':');
  const parts = resource.split('/');
  if (parts[0] === 'hub-content') return parts[3] ?? '';
  return parts[1] ?? '';
}

function matches(entry: DedicatedModelEntry, search: string): boolean {
  const s = search.toLowerCase();
  return entry.displayName.toLowerCase().includes(s) || modelName(entry.modelPackageArn).toLowerCase().includes(s);
}

async function sourceEntries(source: Source, search?: string): Promise<CatalogueResult<DedicatedModelEntry>> {
  const base = await readThrough('dedicated', sourceVariant(source), fetchSource(source));
  if (!search) return base;
  if (base.complete) return { ...base, entries: base.entries.filter((e) => matches(e, search)) };
  return readThrough('dedicated', searchVariant(source, search), fetchSource(source, search));
}

export async function listDedicatedModels(options: { search?: string; max: number; source: DedicatedSource }): Promise<{
  region: string;
  source: DedicatedSource;
  models: DedicatedModelEntry[];
  origin: CatalogueOrigin;
  fetchedAt: string;
}> {
  const search = options.search?.trim() || undefined;
  const max = Math.min(DEDICATED_MAX, options.max);
  const sources = options.source === 'all' ? SOURCES : [options.source];
  const results = await Promise.all(sources.map((s) => sourceEntries(s, search)));
  const models = results
    .flatMap((r) => r.entries)
    .sort((a, b) => b.creationTime.localeCompare(a.creationTime))
    .slice(0, max);
  return {
    region: dedicatedEndpoints.region,
    source: options.source,
    models,
    origin: worstOrigin(results.map((r) => r.origin)),
    fetchedAt: results.map((r) => r.fetchedAt).sort()[0] ?? new Date().toISOString(),
  };
}

/** Refreshes both sources and drops cached searches (they would otherwise outlive the refresh). */
export async function refreshDedicatedCatalogue(): Promise<CatalogueChanges> {
  const changes = await Promise.all(SOURCES.map((s) => refresh('dedicated', sourceVariant(s), fetchSource(s), (m) => m.modelPackageArn)));
  try {
    await dropCachedSearches('dedicated');
  } catch (err) {
    // They expire on their own within the TTL; the refresh itself succeeded.
    logger.warn({ message: 'could not drop cached dedicated searches', error: (err as Error).name });
  }
  return changes
    .map((c) => c.changes)
    .reduce((a, b) => ({
      total: a.total + b.total,
      added: a.added + b.added,
      removed: a.removed + b.removed,
      changed: a.changed + b.changed,
      unchanged: a.unchanged + b.unchanged,
    }));
}
