/**
 * POST /api/admin/sync-models: every platform's catalogue fetched again, whatever the cache holds,
 * and a report per platform of what changed since the cached copy. Platforms are refreshed in
 * parallel and independently: one failing platform is reported, the others still refresh.
 */
import { UpstreamError } from '../errors';
import { logger } from '../../core/observability';
import { PLATFORMS, type PlatformName } from '../platforms/types';
import type { CatalogueChanges } from './cache';
import { refreshDedicatedCatalogue } from './dedicated';
import { refreshHostedCatalogue } from './hosted';
import { refreshManagedCatalogue } from './managed';

type PlatformSyncReport = ({ status: 'refreshed' } & CatalogueChanges) | { status: 'failed'; error: string; details?: string };

const REFRESHERS: Record<PlatformName, () => Promise<CatalogueChanges>> = {
  managed: refreshManagedCatalogue,
  dedicated: refreshDedicatedCatalogue,
  hosted: refreshHostedCatalogue,
};

export interface SyncReport {
  syncedAt: string;
  platforms: Record<PlatformName, PlatformSyncReport>;
  /** The failures' messages, empty when every platform refreshed. */
  errors: string[];
}

export async function syncModels(): Promise<SyncReport> {
  const syncedAt = new Date().toISOString();
  const results = await Promise.all(
    PLATFORMS.map(async (platform): Promise<PlatformSyncReport & { platform: PlatformName }> => {
      try {
        return { platform, status: 'refreshed', ...(await REFRESHERS[platform]()) };
      } catch (err) {
        if (err instanceof UpstreamError) return { platform, status: 'failed', error: err.message, ...(err.details ? { details: err.details } : {}) };
        // Anything else is ours, not the platform's: logged in full, reported without internals.
        logger.error({ message: 'catalogue sync failed', platform, error: err as Error });
        return { platform, status: 'failed', error: `The ${platform} catalogue could not be refreshed` };
      }
    }),
  );
  const errors = results.flatMap((r) => (r.status === 'failed' ? [r.error] : []));
  if (errors.length === results.length) {
    throw new UpstreamError('all', 'No platform catalogue could be refreshed', 'failed', errors.join('; '));
  }
  return { syncedAt, platforms: Object.fromEntries(results.map(({ platform, ...report }) => [platform, report])) as SyncReport['platforms'], errors };
}
