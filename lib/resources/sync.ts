import { endpointsOf } from '../platforms/endpoints';
import type { EndpointDescription } from '../platforms/types';
import { recordSystemAction, type SystemActor } from '../audit/system';
import {
  confirmOperationRequested,
  getTrackedResource,
  markVanished,
  recordObservedState,
  releaseClaim,
  removeResource,
  takeQueuedOperation,
  type ObservedState,
  type TrackedResource,
} from '../../tables/resources';
import { billingAfter, isBillable } from './billing';
import { BUSY_STATUSES, healthOf, specStatus, type SpecStatus } from './lifecycle';

/**
 * Bringing a dedicated resource's stored status up to date with the platform (DescribeEndpoint).
 * Used by the status read, by control before it decides, by a deploy that finds its name held, and
 * by the reconciler. Whoever notices a change stores it (conditional writes: a control claim made
 * meanwhile wins) together with the billing it implies, and records it: every change the reconciler
 * makes, and the notable ones (failed, vanished, changed outside the service) whoever notices them.
 */

/** A deploy holds its name this long before the endpoint must exist (longer than any deploy Lambda runs). */
const RESERVATION_GRACE_MS = 120_000;
/** A control claim whose platform call has not returned after this long is taken as abandoned. */
const CLAIM_STALE_MS = 60_000;

const VANISHED_REASON = 'The endpoint no longer exists on the platform (deleted outside this service)';

type ChangeKind =
  /** An operation finished: Creating or Updating became InService. */
  | 'completed'
  /** The platform reports the endpoint Failed (its reason). */
  | 'failed'
  /** The endpoint is gone although nothing here deleted it. */
  | 'vanished'
  /** A delete asked for here has finished: the resource left tracking. */
  | 'removed'
  /** The platform shows an operation or status this service did not start. */
  | 'status_changed_outside'
  /** Instance type or count changed outside the service. */
  | 'capacity_changed_outside'
  /** A stopped endpoint exists again: someone recreated it outside the service. */
  | 'recreated_outside'
  /** A start accepted while the stop's deletion still ran was carried out once it had finished. */
  | 'started'
  /** ... and the platform refused it: the endpoint stays OutOfService. */
  | 'start_failed';

interface Change {
  kind: ChangeKind;
  reason: string;
  /** Recorded whoever notices it; the others only when the reconciler makes them. */
  notable: boolean;
}

export type SyncResult =
  | { kind: 'present'; resource: TrackedResource; description?: EndpointDescription; changes: Change[] }
  /** The platform has no such endpoint. `deleted`: a delete asked for here completed and the record is gone now. */
  | { kind: 'gone'; reason: 'deleted' | 'vanished'; resource: TrackedResource; changes: Change[] };

export interface SyncOptions {
  /** Who noticed, for the audit log (default: a status read's sync). */
  actor?: SystemActor;
  /** The reconciler records every change it makes; others only the notable ones. */
  record?: 'all' | 'notable';
}

const age = (iso: string | null | undefined, now: Date) => (iso ? now.getTime() - Date.parse(iso) : Infinity);

export function claimInFlight(r: TrackedResource, now: Date): boolean {
  return r.operation?.phase === 'requesting' && age(r.operation.at, now) < CLAIM_STALE_MS;
}

export const staleClaimBefore = (now: Date) => new Date(now.getTime() - CLAIM_STALE_MS).toISOString();

const present = (resource: TrackedResource, description?: EndpointDescription, changes: Change[] = []): SyncResult => ({
  kind: 'present',
  resource,
  description,
  changes,
});

/** What the billing fields become when the resource moves to `status` with `instanceCount` instances. */
function billingFor(r: TrackedResource, status: SpecStatus, instanceCount: number | null, now: Date) {
  const next = billingAfter(r, { billable: isBillable(status), instanceCount }, now);
  return next ? { next, expectedSince: r.billable_since } : undefined;
}

async function endpointGone(r: TrackedResource, now: Date): Promise<SyncResult> {
  // A deploy still between taking the name and CreateEndpoint: nothing to see yet, and nothing wrong.
  if (r.deploy_state === 'reserved' && age(r.created_at, now) < RESERVATION_GRACE_MS) return present(r);
  const removing = r.operation?.action === 'delete' || r.operation?.action === 'stop';
  if (claimInFlight(r, now) && !removing) return present(r);

  // Stopped by a guardrail, or deleted behind the service's back and marked so: the endpoint is gone,
  // its configuration kept (start creates it again). A vanished one stays `gone` to its callers.
  if (r.stopped || r.vanished_at) {
    const kept = (resource: TrackedResource, changes: Change[] = []): SyncResult =>
      r.stopped ? present(resource, undefined, changes) : { kind: 'gone', reason: 'vanished', resource, changes };
    if (r.operation?.phase === 'queued' && r.operation.action === 'start') return kept(...(await startQueued(r, now)));
    if (!r.operation || claimInFlight(r, now)) return kept(r);
    // The stop has finished; or a start claimed the resource and its Lambda died before the platform
    // created anything: then it is OutOfService (and not billed) as before the claim.
    const billing = billingFor(r, 'OutOfService', r.instance_count, now);
    const settled = await recordObservedState(
      r.id,
      { operation: null, status: 'OutOfService', health: 'unknown', ...billing?.next },
      { expectedStatus: r.status, staleBefore: staleClaimBefore(now), at: now.toISOString(), expectedBillableSince: billing?.expectedSince },
    );
    return kept(settled ?? (await getTrackedResource(r.id)) ?? r);
  }

  const deleting = r.status === 'Deleting' || r.operation?.action === 'delete' || r.deploy_state === 'reserved';
  if (deleting) {
    // The delete asked for here has completed (or a deploy died before creating anything): the
    // resource leaves tracking and its name is free again.
    await removeResource(r);
    return {
      kind: 'gone',
      reason: 'deleted',
      resource: r,
      changes: [{ kind: 'removed', reason: "The endpoint's deletion has completed", notable: false }],
    };
  }
  // Deleted behind the service's back. The record stays, marked, so the list still shows what
  // happened; every read and control call answers 404, and delete (confirm: true) removes it.
  if (!r.vanished_at) {
    const marked = await markVanished(r.id, VANISHED_REASON, now.toISOString(), billingFor(r, 'OutOfService', r.instance_count, now));
    const changes: Change[] = marked ? [{ kind: 'vanished', reason: VANISHED_REASON, notable: true }] : [];
    return { kind: 'gone', reason: 'vanished', resource: marked ?? r, changes };
  }
  return { kind: 'gone', reason: 'vanished', resource: r, changes: [] };
}

/**
 * A start accepted while the automatic stop's DeleteEndpoint still ran (lib/resources/service.ts),
 * carried out by the first sync that finds the endpoint gone: CreateEndpoint from the kept
 * configuration. The queued claim is taken with a conditional write, so of concurrent syncs exactly
 * one asks the platform. If the platform refuses, the resource is OutOfService and stopped again, not
 * billed, and the refusal is recorded.
 */
async function startQueued(r: TrackedResource, now: Date): Promise<[TrackedResource, Change[]]> {
  const operation = r.operation as NonNullable<TrackedResource['operation']>;
  const at = now.toISOString();
  const taken = await takeQueuedOperation(r.id, operation, at);
  if (!taken) return [(await getTrackedResource(r.id)) ?? r, []];
  try {
    await endpointsOf(r.type).recreate(r.endpoint_name, r.endpoint_config_name ?? '', r.id);
  } catch (err) {
    const closed = billingAfter(taken, { billable: false, instanceCount: taken.instance_count }, now);
    await releaseClaim({ ...taken, ...closed, status: 'OutOfService', health: 'unknown' }, taken.status, at);
    const reason = `The start accepted during the automatic stop could not create the endpoint again: ${(err as Error).message}; start again to retry`;
    return [(await getTrackedResource(r.id)) ?? r, [{ kind: 'start_failed', reason, notable: true }]];
  }
  await confirmOperationRequested(r.id, { action: 'start', at, from: operation.from }, { stopped: null, active_since: at, idle_check_after: null });
  const started: Change = { kind: 'started', reason: "The automatic stop's deletion finished: the endpoint is created again", notable: false };
  return [(await getTrackedResource(r.id)) ?? taken, [started]];
}

/** The changes worth telling between what was stored and what the platform shows. */
function changesBetween(r: TrackedResource, status: SpecStatus, d: EndpointDescription): Change[] {
  const changes: Change[] = [];
  // A start of a stopped endpoint whose Lambda died before its bookkeeping write: ours, not outside.
  if (r.stopped && r.operation?.action === 'start') return changes;
  if (r.stopped && status !== 'Deleting') {
    changes.push({
      kind: 'recreated_outside',
      reason: `The endpoint was stopped by a guardrail (${r.stopped.reason}) but exists again (${d.status}): it was recreated outside this service`,
      notable: true,
    });
  } else if (status !== r.status) {
    if (status === 'Failed') {
      changes.push({ kind: 'failed', reason: d.failureReason ?? 'The platform reports the endpoint Failed', notable: true });
    } else if (status === 'InService' && (r.status === 'Creating' || r.status === 'Updating')) {
      changes.push({ kind: 'completed', reason: `${r.status} finished: the endpoint is InService`, notable: false });
    } else if (!r.operation) {
      changes.push({
        kind: 'status_changed_outside',
        reason: `The platform shows the endpoint ${d.status} (stored: ${r.status}) although this service started no operation`,
        notable: true,
      });
    }
  }
  const moved: string[] = [];
  if (d.instanceCount && r.instance_count && d.instanceCount !== r.instance_count)
    moved.push(`instance count from ${r.instance_count} to ${d.instanceCount}`);
  if (d.instanceType && r.instance_type && d.instanceType !== r.instance_type)
    moved.push(`instance type from ${r.instance_type} to ${d.instanceType}`);
  // The service never changes capacity in place (restart copies the configuration as it is).
  if (moved.length > 0)
    changes.push({ kind: 'capacity_changed_outside', reason: `Changed outside this service: ${moved.join(', ')}`, notable: true });
  return changes;
}

async function endpointPresent(r: TrackedResource, description: EndpointDescription, now: Date): Promise<SyncResult> {
  // Between a control claim and the platform's answer the platform still shows the old state;
  // writing it back would undo the claim.
  if (claimInFlight(r, now)) return present(r, description);
  const status = specStatus(description.status);
  // A guardrail's stop whose DeleteEndpoint is still running: the resource is OutOfService already.
  if (r.stopped && status === 'Deleting') return present(r, description);

  const health = healthOf(status);
  const patch: ObservedState = {};
  if (status !== r.status) patch.status = status;
  if (health !== r.health) patch.health = health;
  if ((description.failureReason ?? null) !== r.failure_reason) patch.failure_reason = description.failureReason ?? null;
  if (description.instanceType && description.instanceType !== r.instance_type) patch.instance_type = description.instanceType;
  if (description.instanceCount && description.instanceCount !== r.instance_count) patch.instance_count = description.instanceCount;
  if (description.lastModifiedAt !== r.platform_modified_at) patch.platform_modified_at = description.lastModifiedAt;
  // Kept so that an endpoint deleted behind the service's back can be created again from it.
  if (description.configName && description.configName !== r.endpoint_config_name) patch.endpoint_config_name = description.configName;
  if (r.vanished_at) patch.vanished_at = null;
  if (r.stopped) patch.stopped = null;
  // A deploy whose Lambda died between CreateEndpoint and its bookkeeping write: the endpoint exists.
  if (r.deploy_state === 'reserved') {
    patch.deploy_state = 'started';
    if (description.arn) patch.endpoint_arn = description.arn;
  }
  // An operation is over once the platform shows a settled status.
  if (r.operation && !BUSY_STATUSES.includes(status)) patch.operation = null;
  // Billing follows the status and the instance count; it also heals an item whose billing does not
  // match its status (written before billing existed, or a claim whose Lambda died).
  const billing = billingFor(r, status, patch.instance_count ?? r.instance_count, now);
  if (billing) Object.assign(patch, billing.next);
  if (Object.keys(patch).length === 0) return present(r, description);

  // Conditional on the status read: if a control call claimed the resource meanwhile, its claim wins.
  const updated = await recordObservedState(r.id, patch, {
    expectedStatus: r.status,
    staleBefore: staleClaimBefore(now),
    at: now.toISOString(),
    expectedBillableSince: billing?.expectedSince,
  });
  if (updated) return present(updated, description, changesBetween(r, status, description));
  const fresh = await getTrackedResource(r.id);
  if (!fresh) return { kind: 'gone', reason: 'deleted', resource: r, changes: [] };
  return present(fresh, description);
}

const ACTIONS: Record<ChangeKind, string> = {
  completed: 'resource.operation_completed',
  failed: 'resource.failed',
  vanished: 'resource.vanished',
  removed: 'resource.removed',
  status_changed_outside: 'resource.changed_outside',
  capacity_changed_outside: 'resource.changed_outside',
  recreated_outside: 'resource.changed_outside',
  started: 'resource.operation_started',
  start_failed: 'resource.start_failed',
};

/** Audit entries and metrics for the changes a sync stored. */
async function recordChanges(r: TrackedResource, changes: Change[], actor: SystemActor, which: 'all' | 'notable'): Promise<void> {
  for (const change of changes) {
    if (which === 'notable' && !change.notable) continue;
    await recordSystemAction({
      actor,
      action: ACTIONS[change.kind],
      target: `${r.id} ${r.endpoint_name}`,
      reason: change.reason,
      metric: { name: 'ReconciliationChanges', dimensions: { change: change.kind } },
    });
  }
}

export async function syncDedicated(r: TrackedResource, now = new Date(), options: SyncOptions = {}): Promise<SyncResult> {
  const description = await endpointsOf(r.type).describe(r.endpoint_name);
  const result = description ? await endpointPresent(r, description, now) : await endpointGone(r, now);
  if (result.changes.length > 0) await recordChanges(result.resource, result.changes, options.actor ?? 'status-sync', options.record ?? 'notable');
  return result;
}
