import { BadRequest, UpstreamError } from '../errors';
import { hosted } from '../platforms/hosted/api';
import { hostedCapabilities } from '../platforms/hosted/models';
import { getTokenPrice } from '../pricing/service';
import { isDataError } from '../../tables/errors';
import { getNameHolder, getTrackedResource, type TrackedResource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { newResource } from './common';
import { tokenEstimate } from './estimate';
import { checkEndpointName, nameFromModelId } from './names';
import { registerResource } from './register';

/** docs/openapi.yaml deployHosted: a failed check is a 502 whose message carries the upstream status. */
function checkFailed(err: unknown): never {
  if (!(err instanceof UpstreamError)) throw err;
  const status = err.upstreamStatus;
  const carries = status !== undefined && err.message.includes(String(status));
  const suffix = status === undefined ? ' (no upstream status: the API did not answer)' : carries ? '' : ` (upstream status ${status})`;
  throw new UpstreamError('hosted', `Hosted API connectivity check failed: ${err.message}${suffix}`, 'failed', err.details, status);
}

/**
 * POST /api/deploy/hosted (docs/openapi.yaml deployHosted): a connectivity check against the hosted API, nothing else is
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

/**
 * POST /api/deploy/hosted (spec 4.3): a connectivity check against the hosted API, nothing else is
 * created there. A real call (dryRun false, the default) also registers a tracked resource, once: the
 * same model registered again under the same name gets the existing registration (`repeated: true`).
 */
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
  try {
    await registerResource(resource);
  } catch (err) {
    const existing = isDataError(err, 'NameTaken') ? await sameRegistration(name, input.modelId) : undefined;
    if (!existing) throw err;
    return {
      provider: 'hosted',
      modelId: input.modelId,
      endpoint: existing.endpoint_url,
      message: `Connectivity check passed; ${input.modelId} was already registered as "${existing.name}" (resource ${existing.id}): nothing new was registered`,
      id: existing.id,
      endpointName: existing.name,
      status: 'InService' as const,
      repeated: true as const,
    };
  }
  return {
    provider: 'hosted',
    modelId: input.modelId,
    endpoint,
    message: `Connectivity check passed; ${input.modelId} is registered as "${name}" and usable at once`,
    id: resource.id,
    endpointName: name,
    status: resource.status,
  };
}

/**
 * The hosted resource already registered under this name for this very model: registering a hosted
 * model is idempotent (the request has no name a client must choose, and nothing is created on the
 * platform), so the same registration again answers with the first one. A name held for another model
 * stays a 409.
 */
async function sameRegistration(name: string, modelId: string): Promise<TrackedResource | undefined> {
  const holderId = await getNameHolder('hosted', name);
  const holder = holderId ? await getTrackedResource(holderId) : undefined;
  return holder?.type === 'hosted' && holder.model_id === modelId ? holder : undefined;
}
