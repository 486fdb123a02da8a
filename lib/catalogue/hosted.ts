/** The hosted catalogue (GET /api/models/hosted) and model detail (GET /api/hosted/model-info/{modelId+}). */
import { NotFound } from '../errors';
import { hosted } from '../platforms/hosted/api';
import { systemPromptFor } from '../platforms/prompts';
import type { HostedModelEntry } from '../platforms/types';
import { WHOLE_CATALOGUE } from '../../tables/catalogue';
import { readThrough, refresh, type CatalogueChanges, type CatalogueOrigin } from './cache';
import type { ModelDetail } from './managed';
import { modelIdFromPath } from './model-id';
import { modelUsage } from './usage';
import { tokenPricing } from './pricing';

export interface HostedListing {
  models: HostedModelEntry[];
  /** Only with `debug`: the upstream answer as received. */
  raw?: unknown;
  origin: CatalogueOrigin;
  fetchedAt: string;
}

/** With `debug` the platform is asked (the raw answer is the point), and the cache refreshed on the way. */
export async function listHostedModels(options: { debug?: boolean } = {}): Promise<HostedListing> {
  let raw: unknown;
  const result = await readThrough(
    'hosted',
    WHOLE_CATALOGUE,
    async () => {
      const listing = await hosted.listModels();
      raw = listing.raw;
      return { entries: listing.models, complete: true };
    },
    { live: options.debug },
  );
  return { models: result.entries, ...(options.debug ? { raw } : {}), origin: result.origin, fetchedAt: result.fetchedAt };
}

export async function refreshHostedCatalogue(): Promise<CatalogueChanges> {
  const fetch = async () => ({ entries: (await hosted.listModels()).models, complete: true });
  return (await refresh('hosted', WHOLE_CATALOGUE, fetch, (m) => m.id)).changes;
}

export async function hostedModelDetail(rawModelId: string): Promise<ModelDetail> {
  const modelId = modelIdFromPath('hosted', rawModelId);
  const [info, pricing, usage] = await Promise.all([hosted.getModel(modelId), tokenPricing('hosted', modelId), modelUsage('hosted', modelId)]);
  if (!info) throw new NotFound(`Model '${modelId}' was not found on the hosted platform`);
  return { modelInfo: { ...info, pricing }, systemPrompt: systemPromptFor('hosted', modelId), usage };
}
