/** The managed catalogue (GET /api/models/managed) and model detail (GET /api/managed/model-info/{modelId}). */
import { NotFound } from '../errors';
import { managed } from '../platforms/managed/catalogue';
import { systemPromptFor } from '../platforms/prompts';
import type { ManagedModelEntry, ModelInfo } from '../platforms/types';
import { WHOLE_CATALOGUE } from '../../tables/catalogue';
import { readThrough, refresh, type CatalogueOrigin, type CatalogueChanges } from './cache';
import { modelIdFromPath } from './model-id';
import { modelUsage, type ModelUsage } from './usage';
import { tokenPricing } from './pricing';

const fetchManaged = async () => ({ entries: await managed.listModels(), complete: true });

export async function listManagedModels(): Promise<{ region: string; models: ManagedModelEntry[]; origin: CatalogueOrigin; fetchedAt: string }> {
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
