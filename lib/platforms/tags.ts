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
const TAG_TEAM = 'model-ops:team';
const TAG_TEAM_ID = 'model-ops:team-id';

/** The tags of everything created for one endpoint (the resource id once one is known). */
export function ownerTags(endpointName: string, resourceId?: string): Record<string, string> {
  return {
    [TAG_MANAGED_BY]: config.serviceName,
    [TAG_STAGE]: config.stage,
    [TAG_ENDPOINT]: endpointName,
    ...(resourceId ? { [TAG_RESOURCE_ID]: resourceId } : {}),
  };
}

/**
 * The owning team's cost allocation tags (application inference profiles): the name, which Cost
 * Explorer shows, and the id, which survives a rename.
 */
export function teamTags(team: { id: string; name: string } | undefined): Record<string, string> {
  return team ? { [TAG_TEAM]: team.name, [TAG_TEAM_ID]: team.id } : {};
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
