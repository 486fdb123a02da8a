/** The model-info `usage` object (docs/openapi.yaml ModelInfo), from the counters every chat turn updates. */
import type { PlatformName } from '../platforms/types';
import { getModelUsageTotals } from '../../tables/usage';

export interface ModelUsage {
  totalInvocations: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  estimatedCost: number;
}

export async function modelUsage(platform: PlatformName, modelId: string): Promise<ModelUsage> {
  const totals = await getModelUsageTotals(platform, modelId);
  return {
    totalInvocations: totals.invocations,
    totalInputTokens: totals.tokens_in,
    totalOutputTokens: totals.tokens_out,
    estimatedCost: totals.cost_usd,
  };
}
