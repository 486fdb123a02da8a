import { BadRequest } from '../errors';
import { isGlobalProfile as isGlobal, systemProfilesByModel, type InferenceProfileView } from '../platforms/managed/profiles';
import type { PlatformModelInfo } from '../platforms/types';
import { getTokenPrice } from '../pricing/service';

/**
 * How a managed deploy reaches its model: on demand by the base id, through a system-defined
 * (cross-Region) profile, or through an application profile created for the resource. The request's
 * `inferenceProfile` says which; "auto" is the base id where the model is offered on demand, else the
 * geographic profile of the service's Region (the global one where there is no geographic one).
 */
export type ProfileChoice =
  | { kind: 'on-demand' }
  | { kind: 'system'; profile: InferenceProfileView }
  /** `source`: the system profile copied, or none (the foundation model is copied). */
  | { kind: 'application'; source?: InferenceProfileView };

/** What a resource records of its profile: enough for every call to use it and be priced by it. */
export interface RecordedProfile {
  id: string;
  arn: string;
  type: 'SYSTEM_DEFINED' | 'APPLICATION';
  regions: string[];
  /** The price entry calls through it are charged by: a system profile's own where it has one, else the model's. */
  priced_as: string;
}

/** The model's system profiles offered in this Region, geographic ones first. */
async function profilesOf(modelId: string): Promise<InferenceProfileView[]> {
  return (await systemProfilesByModel()).get(modelId) ?? [];
}

function ways(info: PlatformModelInfo, profiles: InferenceProfileView[]): string {
  const list = [...(info.inferenceTypesSupported.includes('ON_DEMAND') ? ['"none" (on demand)'] : []), ...profiles.map((p) => `"${p.id}"`)];
  return list.length > 0 ? list.join(', ') : 'none';
}

export async function chooseProfile(info: PlatformModelInfo, requested: string, region: string): Promise<ProfileChoice> {
  const onDemand = info.inferenceTypesSupported.includes('ON_DEMAND');
  const profiles = await profilesOf(info.modelId);
  const regional = profiles.find((p) => !isGlobal(p) && p.regions.includes(region)) ?? profiles[0];
  if (!onDemand && profiles.length === 0) {
    throw new BadRequest(
      `Model "${info.modelId}" offers neither on-demand inference nor an inference profile in ${region} (it offers ${info.inferenceTypesSupported.join(', ') || 'nothing'}); it needs provisioned throughput`,
    );
  }
  switch (requested) {
    case 'auto':
      return onDemand || !regional ? { kind: 'on-demand' } : { kind: 'system', profile: regional };
    case 'none':
      if (!onDemand) {
        throw new BadRequest(
          `Model "${info.modelId}" is not offered on demand: Bedrock refuses its base id. Deploy it through an inference profile (inferenceProfile ${ways(info, profiles)}, "auto" or "application")`,
        );
      }
      return { kind: 'on-demand' };
    case 'application':
      return onDemand ? { kind: 'application' } : { kind: 'application', source: regional };
    default: {
      const profile = profiles.find((p) => p.id === requested);
      if (!profile) {
        throw new BadRequest(
          `Inference profile "${requested}" does not serve model "${info.modelId}" in ${region}; its ways are ${ways(info, profiles)}`,
        );
      }
      return { kind: 'system', profile };
    }
  }
}

/** The price entry calls through a system profile are charged by: its own where the price table has one (global and geographic prices differ), else the model's. */
export async function pricedAs(modelId: string, profile?: InferenceProfileView): Promise<string> {
  if (!profile) return modelId;
  return (await getTokenPrice('managed', profile.id)).source === 'fallback' ? modelId : profile.id;
}

export const recordOf = (profile: InferenceProfileView, priced_as: string): RecordedProfile => ({
  id: profile.id,
  arn: profile.arn,
  type: profile.type,
  regions: profile.regions,
  priced_as,
});
