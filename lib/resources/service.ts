import { BadRequest, Conflict, NotFound } from '../http/errors';
import { logger } from '../../core/observability';
import { dedicated } from '../platforms/dedicated';
import type { PlatformName } from '../platforms/types';
import {
  getTrackedResource,
  listResources as listStored,
  claimOperation,
  confirmOperationRequested,
  publicResource,
  releaseClaim,
  removeResource,
  type TrackedResource,
} from '../../tables/resources';
import { costsOf, metricsOf } from './costs';
import { decideControl, healthOf, type ControlAction, type SpecStatus } from './lifecycle';
import { staleClaimBefore, syncDedicated, type SyncResult } from './sync';

const notTracked = () => new NotFound('Resource not found');

function goneError(result: Extract<SyncResult, { kind: 'gone' }>, removedFromTracking = false): NotFound {
  const name = result.resource.endpoint_name;
  if (result.reason === 'deleted') return new NotFound(`Resource not found: endpoint "${name}" has been deleted`);
  return new NotFound(
    `Endpoint "${name}" no longer exists on the dedicated platform (it may have been deleted externally)`,
    removedFromTracking
      ? 'The resource has been removed from tracking'
      : 'The resource is kept, marked OutOfService, until it is deleted with action delete and confirm: true',
  );
}

/** GET /api/resources/{resourceId}/status (spec 4.4, 2.3). */
export async function resourceStatus(id: string, now = new Date()) {
  let resource = await getTrackedResource(id);
  if (!resource) throw notTracked();
  if (resource.type === 'dedicated') {
    const synced = await syncDedicated(resource, now);
    if (synced.kind === 'gone') throw goneError(synced);
    resource = synced.resource;
  }
  const [{ metrics, warning }, costs] = await Promise.all([metricsOf(resource), costsOf(resource, now)]);
  return {
    success: true,
    resource: publicResource(resource),
    metrics,
    costs,
    ...(resource.failure_reason ? { failure_reason: resource.failure_reason } : {}),
    ...(warning ? { warnings: [warning] } : {}),
  };
}

/** GET /api/resources: the stored view (the status endpoint refreshes one resource from its platform). */
export async function listResources(filter: { type?: PlatformName; status?: SpecStatus; limit: number; cursor?: string }) {
  const { resources, nextCursor } = await listStored({ type: filter.type, status: filter.status, limit: filter.limit, cursor: filter.cursor });
  return { success: true, resources: resources.map(publicResource), count: resources.length, nextCursor };
}

const MESSAGES = {
  restart: (name: string) =>
    `Restart of endpoint "${name}" initiated: it is Updating and returns to InService in 5-10 minutes; poll the status endpoint`,
  start: (name: string) => `Start of endpoint "${name}" initiated: it is Updating and returns to InService in 5-10 minutes; poll the status endpoint`,
  delete: (name: string) =>
    `Deletion of endpoint "${name}" initiated: it is Deleting and leaves tracking once it is gone (the status endpoint then answers 404)`,
};

/**
 * POST /api/resources/{resourceId}/control (spec 4.4, section 3; rules in ./lifecycle.ts).
 *
 * Dedicated: the endpoint is described first (404 if it is gone, and the stored status brought up to
 * date), then the resource is claimed with a conditional write from that status to Updating or
 * Deleting, so of concurrent requests exactly one gets through and the others get 409. Only then is
 * the platform asked; if it refuses, the claim is rolled back. Nothing waits for the operation.
 */
export async function controlResource(id: string, action: ControlAction, confirm: boolean, now = new Date()) {
  const resource = await getTrackedResource(id);
  if (!resource) throw notTracked();

  const first = decideControl(resource.type, action, confirm);
  if (first.kind === 'refuse') throw refusal(first);
  if (first.kind === 'untrack') {
    // Managed and hosted are always on: nothing exists on the platform to delete.
    if (!(await removeResource(resource))) throw notTracked();
    return {
      success: true,
      message: `Resource "${resource.name}" removed from tracking; nothing was deleted on the ${resource.type} platform`,
      action,
      // Spec 4.4: the control status word is updating or deleting; the removal is already complete.
      status: 'deleting',
      resourceId: id,
    };
  }

  const synced = await syncDedicated(resource, now);
  if (synced.kind === 'gone') {
    if (synced.reason === 'vanished' && action === 'delete') {
      await removeResource(synced.resource);
      throw goneError(synced, true);
    }
    throw goneError(synced);
  }
  const current = synced.resource;
  const decision = decideControl('dedicated', action, confirm, current.status);
  if (decision.kind === 'refuse') throw refusal(decision);
  if (decision.kind !== 'platform') throw new Error('unreachable');

  // stop never gets here (decideControl refuses it).
  const op = action as Exclude<ControlAction, 'stop'>;
  const at = now.toISOString();
  const claimed = await claimOperation(id, { from: current.status, to: decision.next, action: op, at, staleBefore: staleClaimBefore(now) });
  if (!claimed) {
    const latest = await getTrackedResource(id);
    if (!latest) throw notTracked();
    throw new Conflict(`Resource is currently ${latest.status}; wait until that operation completes (poll the status endpoint) and try again`);
  }

  try {
    if (decision.operation === 'delete') await dedicated.delete(current.endpoint_name);
    else await dedicated.restart(current.endpoint_name);
  } catch (err) {
    await rollBackClaim(current, decision.next);
    await explainRefusal(current, err);
  }
  // The platform has accepted: from here on its word wins. If this write fails the claim simply
  // expires (CLAIM_STALE_MS); the operation is under way either way, so the answer stays a success.
  await confirmOperationRequested(id, { action: op, at, from: current.status }).catch((err: Error) =>
    logger.warn({ message: 'control bookkeeping write failed', resourceId: id, error: err.message }),
  );
  return { success: true, message: MESSAGES[op](current.endpoint_name), action, status: decision.word, resourceId: id };
}

async function rollBackClaim(before: TrackedResource, claimedStatus: SpecStatus): Promise<void> {
  await releaseClaim({ id: before.id, status: before.status, health: healthOf(before.status) }, claimedStatus, new Date().toISOString());
}

/** The platform refused: gone (404), busy after all (409), or a platform failure (502). */
async function explainRefusal(before: TrackedResource, err: unknown): Promise<never> {
  const fresh = await getTrackedResource(before.id);
  if (fresh) {
    const synced = await syncDedicated(fresh).catch(() => undefined);
    if (synced?.kind === 'gone') throw goneError(synced);
    if (synced && ['Creating', 'Updating', 'Deleting'].includes(synced.resource.status)) {
      throw new Conflict(
        `Resource is currently ${synced.resource.status}; wait until that operation completes (poll the status endpoint) and try again`,
      );
    }
  }
  // A platform failure stays the platform's UpstreamError (502, naming the platform).
  throw err;
}

/** A refusal decided by the state rules: 400 or 409 with the rule's text. */
const refusal = (d: { statusCode: 400 | 409; message: string }) => (d.statusCode === 400 ? new BadRequest(d.message) : new Conflict(d.message));
