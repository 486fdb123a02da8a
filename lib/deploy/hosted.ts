import { BadRequest, UpstreamError } from '../errors';
import { hosted } from '../platforms/hosted/api';
import { hostedCapabilities } from '../platforms/hosted/models';
import { getTokenPrice } from '../pricing/service';
import type { User } from '../../tables/users';
import { newResource } from './common';
import { tokenEstimate } from './estimate';
import { checkEndpointName, nameFromModelId } from './names';
import { registerResource } from './register';

/** Spec 4.3 and 7: a failed check is a 502 whose message carries the upstream status. */
function checkFailed(err: unknown): never {
  if (!(err instanceof UpstreamError)) throw err;
  const status = err.upstreamStatus;
  const carries = status !== undefined && err.message.includes(String(status));
  const suffix = status === undefined ? ' (no upstream status: the API did not answer)' : carries ? '' : ` (upstream status ${status})`;
  throw new UpstreamError('hosted', `Hosted API connectivity check failed: ${err.message}${suffix}`, 'failed', err.details, status);
}

/**
 * POST /api/deploy/hosted (spec 4.3): a connectivity check against the hosted API, nothing else is
 * created there. A real call (dryRun false, the default) also registers a tracked resource.
 */
/** POST /api/deploy/hosted's input, as validated by its schema (functions/deploy/schemas.ts). */
export interface HostedDeployRequest {
  modelId: string;
  /** The tracked name; derived from modelId when absent. */
  endpointName?: string;
  /** false (the default) runs the connectivity check and registers the resource. */
  dryRun: boolean;
}

export async function deployHosted(input: HostedDeployRequest, user: User, now = new Date()) {
  if (!hosted.configured) throw new BadRequest('The hosted API key is not configured: set HOSTED_API_KEY');
  const name = input.endpointName ?? nameFromModelId(input.modelId);
  checkEndpointName('hosted', name);

  const { models } = await hosted.listModels().catch(checkFailed);
  const model = models.find((m) => m.id === input.modelId);
  if (!model) throw new BadRequest(`Unknown hosted model "${input.modelId}": see GET /api/models/hosted for the models on offer`);

  const { endpoint } = await hosted.checkConnectivity(input.modelId).catch(checkFailed);
  const price = await getTokenPrice('hosted', input.modelId);

  if (input.dryRun) {
    return {
      success: true,
      provider: 'hosted',
      modelId: input.modelId,
      endpoint,
      dryRun: true,
      plan: {
        modelId: input.modelId,
        modelName: model.name,
        endpointName: name,
        endpoint,
        task: model.task,
        pricing: { note: 'Pay per token on the hosted API; nothing is provisioned', billingModel: 'per token' },
        estimatedCost: tokenEstimate(price),
        warnings: [
          ...(model.task !== 'chat' ? [`The model's task is ${model.task}: it cannot be used for chat`] : []),
          ...(price.source === 'fallback' ? ['No price entry for this model: the cost shown is a conservative estimate'] : []),
        ],
      },
      message: `Connectivity check passed for ${input.modelId}. Dry run: nothing was registered.`,
    };
  }

  const resource = newResource(
    {
      name,
      type: 'hosted',
      status: 'InService',
      health: 'healthy',
      endpoint_url: endpoint,
      region: 'global',
      model_name: model.name,
      model_id: input.modelId,
      endpoint_name: name,
      capabilities: hostedCapabilities(input.modelId),
    },
    user,
    now,
  );
  await registerResource(resource);
  return {
    success: true,
    provider: 'hosted',
    modelId: input.modelId,
    endpoint,
    message: `Connectivity check passed; ${input.modelId} is registered as "${name}" and usable at once`,
    id: resource.id,
    endpointName: name,
    status: resource.status,
  };
}
