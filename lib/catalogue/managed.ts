/** The managed catalogue (GET /api/models/managed) and model detail (GET /api/managed/model-info/{modelId}). */
import { NotFound } from '../errors';
import { managed } from '../platforms/managed/catalogue';
import { systemPromptFor } from '../platforms/prompts';
import { isGlobalProfile, systemProfilesByModel } from '../platforms/managed/profiles';
import type { InvocationWays, ManagedModelEntry, ModelInfo } from '../platforms/types';
import { WHOLE_CATALOGUE } from '../../tables/catalogue';
import { readThrough, refresh, type CatalogueOrigin, type CatalogueChanges } from './cache';
import { modelIdFromPath } from './model-id';
import { modelUsage, type ModelUsage } from './usage';
import { tokenPricing } from './pricing';

/** A catalogue entry with how the model can be invoked here (the list is cached with it: profiles change as rarely as models). */
export type ManagedCatalogueEntry = ManagedModelEntry & { invocation: InvocationWays };

/**
 * ListFoundationModels joined with ListInferenceProfiles (two calls, whatever the size of the catalogue):
 * a model is invoked on demand by its base id where it is ON_DEMAND, through each system profile that
 * serves it, and through an application profile wherever either of those exists, since one copies them.
 */
async function fetchManaged() {
  const [models, profiles] = await Promise.all([managed.listModels(), systemProfilesByModel()]);
  const entries = models.map((m): ManagedCatalogueEntry => {
    const onDemand = m.inferenceTypesSupported.includes('ON_DEMAND') ? m.modelId : null;
    const ways = (profiles.get(m.modelId) ?? []).map((p) => ({
      id: p.id,
      arn: p.arn,
      scope: isGlobalProfile(p) ? ('global' as const) : ('geographic' as const),
      regions: p.regions,
    }));
    return { ...m, invocation: { onDemand, profiles: ways, applicationProfile: onDemand !== null || ways.length > 0 } };
  });
  return { entries, complete: true };
}

export async function listManagedModels(): Promise<{ region: string; models: ManagedCatalogueEntry[]; origin: CatalogueOrigin; fetchedAt: string }> {
  const result = await readThrough('managed', WHOLE_CATALOGUE, fetchManaged);
  return { region: managed.region, models: result.entries, origin: result.origin, fetchedAt: result.fetchedAt };
}

export async function refreshManagedCatalogue(): Promise<CatalogueChanges> {
  return (await refresh('managed', WHOLE_CATALOGUE, fetchManaged, (m) => m.modelId)).changes;
}

export interface ModelDetail {
  modelInfo: ModelInfo;
  systemPrompt: string;
  usage: ModelUsage;
}

export async function managedModelDetail(rawModelId: string): Promise<ModelDetail> {
  const modelId = modelIdFromPath('managed', rawModelId);
  const [info, pricing, usage] = await Promise.all([managed.getModel(modelId), tokenPricing('managed', modelId), modelUsage('managed', modelId)]);
  if (!info) throw new NotFound(`Model '${modelId}' was not found on the managed platform`);
  return { modelInfo: { ...info, pricing }, systemPrompt: systemPromptFor('managed', modelId), usage };
}
