import { BadRequest } from '../errors';
import { managed } from '../platforms/managed/catalogue';
import { managedCapabilities } from '../platforms/managed/features';
import { createApplicationProfile, deleteApplicationProfile } from '../platforms/managed/profiles';
import { ownerTags, teamTags } from '../platforms/tags';
import type { PlatformModelInfo } from '../platforms/types';
import { getTokenPrice } from '../pricing/service';
import type { ResourceInferenceProfile } from '../../tables/resources';
import type { User } from '../../tables/users';
import { DRY_RUN_NOTE, newResource } from './common';
import { tokenEstimate } from './estimate';
import { chooseProfile, pricedAs, recordOf, type ProfileChoice } from './inference-profile';
import { checkEndpointName } from './names';
import { owningTeam, type OwningTeam } from './owning-team';
import { registerResource } from './register';

/**
 * POST /api/deploy/managed (docs/openapi.yaml deployManaged). Nothing is provisioned: the model is served on demand by the
 * platform. A real call registers a tracked resource (status InService) that chat and status use.
 */
/** POST /api/deploy/managed's input, as validated by its schema (functions/deploy/schemas.ts). */
export interface ManagedDeployRequest {
  modelId: string;
  endpointName: string;
  region?: string;
  /** true (the default) returns the plan only. */
  dryRun: boolean;
  /** "auto" (the default), "none", "application" or a system profile id such as us.<modelId> or global.<modelId>. */
  inferenceProfile?: string;
  /** With "application": the caller's cost allocation tags for the profile. */
  tags?: Record<string, string>;
  /** With "application": the team the profile bills (the caller's own team when they are in exactly one). */
  team_id?: string;
}

/** The tags of an application profile: the service's own (stage, resource, team) win, so a caller's tag cannot hide whose it is. */
function profileTags(input: ManagedDeployRequest, team: OwningTeam | undefined, resourceId?: string): Record<string, string> {
  return { ...(input.tags ?? {}), ...teamTags(team), ...ownerTags(input.endpointName, resourceId) };
}

/** What the plan and the answer show of the profile: the application one has no id before it exists. */
function profileView(
  choice: ProfileChoice,
  info: PlatformModelInfo,
  region: string,
  input: ManagedDeployRequest,
  team: OwningTeam | undefined,
  recorded?: ResourceInferenceProfile,
) {
  if (recorded) return { id: recorded.id, arn: recorded.arn, type: recorded.type, regions: recorded.regions };
  if (choice.kind === 'system') return { id: choice.profile.id, arn: choice.profile.arn, type: choice.profile.type, regions: choice.profile.regions };
  if (choice.kind === 'application') {
    return {
      id: null,
      arn: null,
      type: 'APPLICATION' as const,
      regions: choice.source?.regions ?? [region],
      copyFrom: choice.source?.arn ?? info.modelArn,
      tags: profileTags(input, team),
    };
  }
  return null;
}

function lifecycleWarning(info: PlatformModelInfo): string | undefined {
  const { status, endOfLifeTime } = info.modelLifecycle;
  if (status === 'ACTIVE') return undefined;
  const end = endOfLifeTime ? `; Bedrock ends it on ${endOfLifeTime.slice(0, 10)}` : '';
  return `The model is ${status} on Bedrock${end}: plan a move to an active model`;
}

export async function deployManaged(input: ManagedDeployRequest, user: User, now = new Date()) {
  checkEndpointName('managed', input.endpointName);
  // The platform client talks to one region; a model "deployed" elsewhere could not be reached by chat.
  const region = input.region ?? managed.region;
  if (region !== managed.region) {
    throw new BadRequest(`Region "${region}" is not available: this service reaches the managed platform in ${managed.region}`);
  }
  const info = await managed.getModel(input.modelId);
  if (!info) throw new BadRequest(`Unknown managed model "${input.modelId}": see GET /api/models/managed for the models on offer`);
  const application = input.inferenceProfile === 'application';
  if ((input.tags || input.team_id) && !application) {
    throw new BadRequest('tags and team_id label an application inference profile: send them with inferenceProfile "application"');
  }
  const [choice, team] = await Promise.all([
    chooseProfile(info, input.inferenceProfile ?? 'auto', region),
    application ? owningTeam(user, input.team_id) : undefined,
  ]);
  const source = choice.kind === 'system' ? choice.profile : choice.kind === 'application' ? choice.source : undefined;
  const priceKey = await pricedAs(input.modelId, source);
  const price = await getTokenPrice('managed', priceKey);
  const runtimeId = choice.kind === 'system' ? choice.profile.id : input.modelId;

  if (input.dryRun) {
    const warnings: string[] = [];
    if (!info.outputModalities.includes('TEXT')) {
      warnings.push(`The model produces ${info.outputModalities.join(', ')}, not text: it cannot be used for chat`);
    }
    const legacy = lifecycleWarning(info);
    if (legacy) warnings.push(legacy);
    if (price.source === 'fallback') warnings.push('No price entry for this model: the cost shown is a conservative estimate');
    return {
      dryRun: true,
      plan: {
        modelId: input.modelId,
        endpointName: input.endpointName,
        region,
        modelDetails: {
          modelName: info.modelName,
          providerName: info.providerName,
          inputModalities: info.inputModalities,
          outputModalities: info.outputModalities,
          inferenceTypesSupported: info.inferenceTypesSupported,
        },
        invokeEndpoint: managed.invokeUrl(runtimeId),
        inferenceProfile: profileView(choice, info, region, input, team),
        pricing: {
          note: 'Pay per token: input and output tokens are billed per request; there is no hourly charge',
          billingModel: 'on-demand (per token)',
          per_1k_input_tokens_usd: price.input_per_1k,
          per_1k_output_tokens_usd: price.output_per_1k,
        },
        estimatedCost: tokenEstimate(price),
        provisioning: 'none: the platform serves the model on demand; it is usable at once',
        warnings,
      },
      message: DRY_RUN_NOTE,
    };
  }

  // The application profile is created first, tagged with the resource's id, and removed again if the
  // resource cannot be registered (its name taken meanwhile): nothing is left behind untracked.
  const resource = newResource(
    {
      name: input.endpointName,
      type: 'managed',
      status: 'InService',
      health: 'healthy',
      endpoint_url: managed.invokeUrl(runtimeId),
      region,
      model_name: info.modelName,
      model_id: input.modelId,
      endpoint_name: input.endpointName,
      capabilities: managedCapabilities(info),
    },
    user,
    now,
  );
  if (choice.kind === 'system') resource.inference_profile = recordOf(choice.profile, priceKey);
  if (choice.kind === 'application') {
    const created = await createApplicationProfile({
      name: `model-ops-${resource.id.replaceAll('-', '')}`,
      description: `model-ops resource "${input.endpointName}" (${resource.id})`,
      copyFrom: choice.source?.arn ?? info.modelArn,
      tags: profileTags(input, team, resource.id),
    });
    resource.inference_profile = recordOf(created, priceKey);
    resource.endpoint_url = managed.invokeUrl(created.arn);
  }
  try {
    await registerResource(resource);
  } catch (err) {
    if (resource.inference_profile?.type === 'APPLICATION') await deleteApplicationProfile(resource.inference_profile.arn);
    throw err;
  }
  return {
    message: `Access to ${info.modelName} configured as "${input.endpointName}": nothing was provisioned, the model is usable at once`,
    endpoint: resource.endpoint_url,
    modelId: input.modelId,
    inferenceProfile: profileView(choice, info, region, input, team, resource.inference_profile ?? undefined),
    region,
    id: resource.id,
    endpointName: input.endpointName,
    status: resource.status,
  };
}
