import {
  getNameHolder,
  getTrackedResource,
  insertResource,
  endpointNameTaken,
  releaseOrphanName,
  type TrackedResource,
} from '../../tables/resources';
import { isDataError } from '../../tables/errors';

/**
 * Whether the resource holding a name no longer stands for a live one, so that its name may be
 * reclaimed (dedicated: its endpoint is gone; lib/deploy/dedicated.ts). Managed and hosted names
 * stand until their resource is deleted, so their deploys pass none. Kept out of this module so that
 * the managed and hosted deploys do not bundle the SageMaker client.
 */
export type HolderGone = (holder: TrackedResource) => Promise<boolean>;

const namesStand: HolderGone = async () => false;

/**
 * Registers a new resource under its name (one transaction with the name guard, see
 * tables/resources.ts): 409 when the name is taken.
 *
 * Before giving up, a held name is checked once: a guard whose resource is gone (orphaned), or whose
 * dedicated endpoint has finished deleting or was deleted behind the service's back, no longer stands
 * for a live endpoint, so it is released and the registration tried again.
 */
export async function registerResource(resource: TrackedResource, holderGone: HolderGone = namesStand): Promise<void> {
  // A cheap read first: a name that is plainly taken is refused without a transaction, which keeps a
  // burst of deploys of one name from queueing on the guard item. The transaction stays the guarantee.
  if ((await getNameHolder(resource.type, resource.name)) && !(await reclaimName(resource, holderGone))) {
    throw endpointNameTaken(resource.type, resource.name);
  }
  try {
    await insertResource(resource);
  } catch (err) {
    if (!isDataError(err, 'NameTaken')) throw err;
    // A transaction that timed out on the client may have been applied all the same, and the SDK's
    // retry then finds the name taken - by this very resource.
    if ((await getNameHolder(resource.type, resource.name)) === resource.id) return;
    if (!(await reclaimName(resource, holderGone))) throw err;
    await insertResource(resource);
  }
}

async function reclaimName(resource: TrackedResource, holderGone: HolderGone): Promise<boolean> {
  const holderId = await getNameHolder(resource.type, resource.name);
  if (!holderId) return true;
  const holder = await getTrackedResource(holderId);
  if (!holder) {
    await releaseOrphanName(resource.type, resource.name, holderId);
    return true;
  }
  return holderGone(holder);
}
