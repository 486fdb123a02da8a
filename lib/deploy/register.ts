import { getNameHolder, getTrackedResource, insertResource, NameTaken, releaseOrphanName, removeResource, type TrackedResource } from '../../tables/resources';
import { syncDedicated } from '../resources/sync';

/**
 * Registers a new resource under its name (one transaction with the name guard, see
 * tables/resources.ts): 409 when the name is taken.
 *
 * Before giving up, a held name is checked once: a guard whose resource is gone (orphaned), or whose
 * dedicated endpoint has finished deleting or was deleted behind the service's back, no longer stands
 * for a live endpoint, so it is released and the registration tried again.
 */
export async function registerResource(resource: TrackedResource): Promise<void> {
  // A cheap read first: a name that is plainly taken is refused without a transaction, which keeps a
  // burst of deploys of one name from queueing on the guard item. The transaction stays the guarantee.
  if ((await getNameHolder(resource.type, resource.name)) && !(await reclaimName(resource))) {
    throw new NameTaken(resource.type, resource.name);
  }
  try {
    await insertResource(resource);
  } catch (err) {
    if (!(err instanceof NameTaken)) throw err;
    // A transaction that timed out on the client may have been applied all the same, and the SDK's
    // retry then finds the name taken - by this very resource.
    if ((await getNameHolder(resource.type, resource.name)) === resource.id) return;
    if (!(await reclaimName(resource))) throw err;
    await insertResource(resource);
  }
}

async function reclaimName(resource: TrackedResource): Promise<boolean> {
  const holderId = await getNameHolder(resource.type, resource.name);
  if (!holderId) return true;
  const holder = await getTrackedResource(holderId);
  if (!holder) {
    await releaseOrphanName(resource.type, resource.name, holderId);
    return true;
  }
  // Managed and hosted names stand until their resource is deleted; a dedicated name stands while
  // its endpoint exists (one DescribeEndpoint, only on a conflict).
  if (holder.type !== 'dedicated') return false;
  const synced = await syncDedicated(holder);
  if (synced.kind !== 'gone') return false;
  // `deleted` has already left tracking; a vanished endpoint's marker record gives way to the new one.
  if (synced.reason === 'vanished') await removeResource(holder);
  return true;
}
