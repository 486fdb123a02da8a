import { dedicated } from '../platforms/dedicated';
import type { EndpointDescription } from '../platforms/types';
import {
  getTrackedResource,
  markVanished,
  recordObservedState,
  removeResource,
  type ObservedState,
  type TrackedResource,
} from '../../tables/resources';
import { healthOf, specStatus } from './lifecycle';

/**
 * Bringing a dedicated resource's stored status up to date with the platform (DescribeEndpoint).
 * Used by the status read, by control before it decides, and by a deploy that finds its name held.
 */

/** A deploy holds its name this long before the endpoint must exist (longer than any deploy Lambda runs). */
export const RESERVATION_GRACE_MS = 120_000;
/** A control claim whose platform call has not returned after this long is taken as abandoned. */
export const CLAIM_STALE_MS = 60_000;

export const VANISHED_REASON = 'The endpoint no longer exists on the platform (deleted outside this service)';

export type SyncResult =
  | { kind: 'present'; resource: TrackedResource; description?: EndpointDescription }
  /** The platform has no such endpoint. `deleted`: a delete asked for here completed and the record is gone now. */
  | { kind: 'gone'; reason: 'deleted' | 'vanished'; resource: TrackedResource };

const age = (iso: string | null | undefined, now: Date) => (iso ? now.getTime() - Date.parse(iso) : Infinity);

function claimInFlight(r: TrackedResource, now: Date): boolean {
  return r.operation?.phase === 'requesting' && age(r.operation.at, now) < CLAIM_STALE_MS;
}

export const staleClaimBefore = (now: Date) => new Date(now.getTime() - CLAIM_STALE_MS).toISOString();

async function endpointGone(r: TrackedResource, now: Date): Promise<SyncResult> {
  // A deploy still between taking the name and CreateEndpoint: nothing to see yet, and nothing wrong.
  if (r.deploy_state === 'reserved' && age(r.created_at, now) < RESERVATION_GRACE_MS) return { kind: 'present', resource: r };
  if (claimInFlight(r, now) && r.operation?.action !== 'delete') return { kind: 'present', resource: r };

  const deleting = r.status === 'Deleting' || r.operation?.action === 'delete' || r.deploy_state === 'reserved';
  if (deleting) {
    // The delete asked for here has completed (or a deploy died before creating anything): the
    // resource leaves tracking and its name is free again.
    await removeResource(r);
    return { kind: 'gone', reason: 'deleted', resource: r };
  }
  // Deleted behind the service's back. The record stays, marked, so the list still shows what
  // happened; every read and control call answers 404, and delete (confirm: true) removes it.
  if (!r.vanished_at) {
    const marked = await markVanished(r.id, VANISHED_REASON, now.toISOString());
    return { kind: 'gone', reason: 'vanished', resource: marked ?? r };
  }
  return { kind: 'gone', reason: 'vanished', resource: r };
}

export async function syncDedicated(r: TrackedResource, now = new Date()): Promise<SyncResult> {
  const description = await dedicated.describe(r.endpoint_name);
  if (!description) return endpointGone(r, now);
  // Between a control claim and the platform's answer the platform still shows the old state;
  // writing it back would undo the claim.
  if (claimInFlight(r, now)) return { kind: 'present', resource: r, description };

  const status = specStatus(description.status);
  const health = healthOf(status);
  const patch: ObservedState = {};
  if (status !== r.status) patch.status = status;
  if (health !== r.health) patch.health = health;
  if ((description.failureReason ?? null) !== r.failure_reason) patch.failure_reason = description.failureReason ?? null;
  if (description.instanceType && description.instanceType !== r.instance_type) patch.instance_type = description.instanceType;
  if (description.instanceCount && description.instanceCount !== r.instance_count) patch.instance_count = description.instanceCount;
  if (r.vanished_at) patch.vanished_at = null;
  // An operation is over once the platform shows a settled status.
  if (r.operation && !['Creating', 'Updating', 'Deleting'].includes(status)) patch.operation = null;
  if (Object.keys(patch).length === 0) return { kind: 'present', resource: r, description };

  // Conditional on the status read: if a control call claimed the resource meanwhile, its claim wins.
  const updated = await recordObservedState(r.id, patch, { expectedStatus: r.status, staleBefore: staleClaimBefore(now), at: now.toISOString() });
  if (updated) return { kind: 'present', resource: updated, description };
  const fresh = await getTrackedResource(r.id);
  if (!fresh) return { kind: 'gone', reason: 'deleted', resource: r };
  return { kind: 'present', resource: fresh, description };
}
