import { BadRequest } from '../errors';
import { managed } from '../platforms/managed/catalogue';
import { managedCapabilities } from '../platforms/managed/features';
import { getTokenPrice } from '../pricing/service';
import type { User } from '../../tables/users';
import { DRY_RUN_NOTE, newResource } from './common';
import { tokenEstimate } from './estimate';
import { checkEndpointName } from './names';
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
  if (!info.inferenceTypesSupported.includes('ON_DEMAND')) {
    throw new BadRequest(
      `Model "${input.modelId}" does not support on-demand inference (it offers ${info.inferenceTypesSupported.join(', ') || 'none'}); it needs provisioned throughput`,
    );
  }
  const price = await getTokenPrice('managed', input.modelId);
  const invokeEndpoint = managed.invokeUrl(input.modelId);

  if (input.dryRun) {
    const warnings: string[] = [];
    if (!info.outputModalities.includes('TEXT')) {
      warnings.push(`The model produces ${info.outputModalities.join(', ')}, not text: it cannot be used for chat`);
    }
    if (info.modelLifecycle.status !== 'ACTIVE') warnings.push(`The model's lifecycle status is ${info.modelLifecycle.status}`);
    if (price.source === 'fallback') warnings.push('No price entry for this model: the cost shown is a conservative estimate');
    return {
      success: true,
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
        invokeEndpoint,
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

  const resource = newResource(
    {
      name: input.endpointName,
      type: 'managed',
      status: 'InService',
      health: 'healthy',
      endpoint_url: invokeEndpoint,
      region,
      model_name: info.modelName,
      model_id: input.modelId,
      endpoint_name: input.endpointName,
      capabilities: managedCapabilities(info),
    },
    user,
    now,
  );
  await registerResource(resource);
  return {
    success: true,
    message: `Access to ${info.modelName} configured as "${input.endpointName}": nothing was provisioned, the model is usable at once`,
    endpoint: invokeEndpoint,
    modelId: input.modelId,
    region,
    id: resource.id,
    endpointName: input.endpointName,
    status: resource.status,
  };
}
