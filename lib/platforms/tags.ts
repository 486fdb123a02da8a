/**
 * The tags that mark an endpoint as this service's: which service, which stage (two stages can share
 * an account and region), which tracked resource, which endpoint name. Everything the service creates
 * on the dedicated platform carries them, so an endpoint whose record was never written (or was lost)
 * can still be recognised as ours and offered for adoption or deletion. Pure: no SDK client here, so
 * modules that only read tags do not bundle SageMaker.
 */
import { config } from '../../core/config';

const TAG_MANAGED_BY = 'managed-by';
const TAG_STAGE = 'model-ops:stage';
const TAG_RESOURCE_ID = 'model-ops:resource-id';
const TAG_ENDPOINT = 'model-ops:endpoint';

/** The tags of everything created for one endpoint (the resource id once one is known). */
export function ownerTags(endpointName: string, resourceId?: string): Record<string, string> {
  return {
    [TAG_MANAGED_BY]: config.serviceName,
    [TAG_STAGE]: config.stage,
    [TAG_ENDPOINT]: endpointName,
    ...(resourceId ? { [TAG_RESOURCE_ID]: resourceId } : {}),
  };
}

export interface Ownership {
  /** Created by this service in this stage. */
  ours: boolean;
  /** The resource it was created for, when its tags say. */
  resourceId?: string;
}

export function ownership(tags: Record<string, string>): Ownership {
  const ours = tags[TAG_MANAGED_BY] === config.serviceName && tags[TAG_STAGE] === config.stage;
  return { ours, resourceId: ours ? tags[TAG_RESOURCE_ID] : undefined };
}
