import { BadRequest, Conflict, NotFound } from '../errors';
import { logger } from '../../core/observability';
import type { PlatformName } from '../platforms/types';
import { usd as money } from '../pricing/money';
import {
  getTrackedResource,
  listResources as listStored,
  claimOperation,
  confirmOperationRequested,
  queueClaimedOperation,
  releaseClaim,
  removeResource,
  setGuardrails,
  type TrackedResource,
} from '../../tables/resources';
import type { User } from '../../tables/users';
import { setAlertThresholds } from '../../tables/alerts';
import { alertThresholdsOf } from '../alerts/thresholds';
import { resourceView } from './abilities';
import { accessSetting, accessView, seesAccess } from './access';
import { billingAfter, isBillable, monthToDate } from './billing';
import { costsOf, instancePriceOf, metricsOf } from './costs';
import { budgetReached, guardrailView } from './guardrails';
import { deleteApplicationProfile } from '../platforms/managed/profiles';
import { decideControl, healthOf, type ControlAction, type SpecStatus } from './lifecycle';
import { staleClaimBefore, syncDedicated } from './sync';
import { traitsOf } from '../platforms/registry';
import { endpointsOf } from '../platforms/endpoints';
import { stateChangeTime } from './timing';

const notTracked = () => new NotFound('Resource not found');

/** A dedicated resource whose delete, asked for here, has completed: it has left tracking. */
const deletedError = (r: TrackedResource) => new NotFound(`Resource not found: endpoint "${r.endpoint_name}" has been deleted`);

/**
 * GET /api/resources/{resourceId}/status (docs/openapi.yaml resourceStatus), with the guardrails of a
 * dedicated resource and, for admins, who may use it. A dedicated endpoint deleted behind the service's
 * back is still tracked: it reads OutOfService with the reason, and start creates it again (or delete
 * removes it).
 */
export async function resourceStatus(id: string, caller: Pick<User, 'role'>, now = new Date()) {
  let resource = await getTrackedResource(id);
  if (!resource) throw notTracked();
  // Endpoints change on their platform: read what it says now (managed and hosted are always on).
  const hasEndpoint = traitsOf(resource.type).lifecycle === 'endpoint';
  if (hasEndpoint) {
    const synced = await syncDedicated(resource, now);
    if (synced.kind === 'gone' && synced.reason === 'deleted') throw deletedError(synced.resource);
    resource = synced.resource;
  }
  // A managed resource's mark is its profile's (failure_reason says so); the hint is the endpoint's.
  const vanished = hasEndpoint && resource.vanished_at;
  const [{ metrics, warning }, costs, price, access, thresholds] = await Promise.all([
    metricsOf(resource),
    costsOf(resource, now),
    hasEndpoint ? instancePriceOf(resource) : 0,
    seesAccess(caller) ? accessView(resource) : undefined,
    alertThresholdsOf(hasEndpoint ? [endpointOwner(id)] : []),
  ]);
  return {
    resource: resourceView(resource, caller),
    metrics,
    costs,
    ...(hasEndpoint ? { guardrails: guardrailView(resource, price, thresholds(endpointOwner(id)), now) } : {}),
    ...(access ? { access } : {}),
    ...(resource.failure_reason ? { failure_reason: resource.failure_reason } : {}),
    ...(warning || vanished ? { warnings: [...(warning ? [warning] : []), ...(vanished ? [VANISHED_HINT] : [])] } : {}),
  };
}

const VANISHED_HINT =
  'The endpoint was deleted outside this service: action start creates it again from its kept configuration; delete (confirm: true) removes the resource';

/**
 * GET /api/resources: the stored view (the status endpoint refreshes one resource from its platform);
 * admins see who may use each resource too.
 */
export async function listResources(
  filter: { type?: PlatformName; status?: SpecStatus; limit: number; cursor?: string },
  caller: Pick<User, 'role'>,
) {
  const { resources, nextCursor } = await listStored({ type: filter.type, status: filter.status, limit: filter.limit, cursor: filter.cursor });
  const shown = resources.map((r) => ({ ...resourceView(r, caller), ...(seesAccess(caller) ? { access: accessSetting(r) } : {}) }));
  return { resources: shown, count: resources.length, nextCursor };
}

/** PATCH /api/resources/{resourceId}'s input: a number sets a guardrail, null clears it, absent leaves it. */
export interface GuardrailUpdate {
  idleTimeoutMinutes?: number | null;
  monthlyBudgetUsd?: number | null;
  /** The budget's alert thresholds (tables/alerts.ts); null: the default. */
  alert_thresholds?: number[] | null;
}

/** An endpoint's budget as alerts name it (scope kind "endpoint", the resource's id). */
const endpointOwner = (id: string) => ({ kind: 'endpoint', id }) as const;

/**
 * PATCH /api/resources/{resourceId}: sets or clears a dedicated resource's idle timeout, monthly
 * budget and the budget's alert thresholds. The reconciler applies them on its next pass (stops and
 * threshold alerts alike: an endpoint's cost accrues with time, not with writes); nothing on the
 * platform changes here.
 */
export async function updateGuardrails(id: string, input: GuardrailUpdate, now = new Date()) {
  const resource = await getTrackedResource(id);
  if (!resource) throw notTracked();
  if (traitsOf(resource.type).lifecycle !== 'endpoint') {
    throw new BadRequest(`Guardrails apply to dedicated resources only: ${resource.type} resources bill per token and cost nothing while idle`);
  }
  if (resource.status === 'Deleting') throw new Conflict('Resource is currently Deleting; its guardrails can no longer change');
  const updated = await setGuardrails(
    id,
    { idle_timeout_minutes: input.idleTimeoutMinutes, monthly_budget_usd: input.monthlyBudgetUsd },
    now.toISOString(),
  );
  if (!updated) throw notTracked();
  if (input.alert_thresholds !== undefined) await setAlertThresholds(endpointOwner(id), input.alert_thresholds);

  const [price, thresholds] = await Promise.all([instancePriceOf(updated), alertThresholdsOf([endpointOwner(id)])]);
  const warnings: string[] = [];
  const spent = monthToDate(updated, price, now).usd;
  if (updated.monthly_budget_usd !== null && spent >= updated.monthly_budget_usd && isBillable(updated.status)) {
    warnings.push(
      `This month's cost (${money(spent)}) already reaches the budget of ${money(updated.monthly_budget_usd)}: the next reconciliation pass stops the endpoint`,
    );
  }
  if (updated.stopped && !(updated.monthly_budget_usd !== null && spent >= updated.monthly_budget_usd)) {
    warnings.push('The endpoint is stopped: action start brings it back');
  }
  return {
    message: `Guardrails of "${updated.name}" updated; the reconciler applies them on its next pass`,
    resourceId: id,
    guardrails: guardrailView(updated, price, thresholds(endpointOwner(id)), now),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

// What the person will see, with the time the platform really takes (./timing.ts).
const MESSAGES = {
  restart: (name: string) => `Restart of endpoint "${name}" initiated: its status reads Updating for ${stateChangeTime()}, then InService again`,
  start: (name: string) => `Start of endpoint "${name}" initiated: its status reads Updating for ${stateChangeTime()}, then InService again`,
  recreate: (name: string) =>
    `Start of endpoint "${name}" initiated: it is created again from its kept configuration, its status reading Creating for ${stateChangeTime()}, then InService`,
  queued: (name: string) =>
    `Start of endpoint "${name}" accepted: it reads Creating, and is created again from its kept configuration as soon as the automatic stop's deletion has finished (${stateChangeTime()}), then InService`,
  delete: (name: string) =>
    `Deletion of endpoint "${name}" initiated: its status reads Deleting for ${stateChangeTime()}; then it is gone and no longer tracked (its status answers 404)`,
};

/**
 * POST /api/resources/{resourceId}/control (docs/openapi.yaml resourceControl; docs/architecture.md, Resource lifecycle; rules in ./lifecycle.ts).
 *
 * Dedicated: the endpoint is described first (404 if it is gone, and the stored status brought up to
 * date), then the resource is claimed with a conditional write from that status to Updating,
 * Deleting or Creating (with the billing that follows), so of concurrent requests, the reconciler's
 * automatic stops included, exactly one gets through and the others get 409. Only then is the
 * platform asked; if it refuses, the claim is rolled back. Nothing waits for the operation.
 */
export async function controlResource(id: string, action: ControlAction, confirm: boolean, now = new Date()) {
  const resource = await getTrackedResource(id);
  if (!resource) throw notTracked();

  const first = decideControl(resource.type, action, confirm);
  if (first.kind === 'refuse') throw refusal(first);
  if (first.kind === 'untrack') {
    // Managed and hosted are always on: nothing exists on the platform to delete but a managed
    // resource's own application inference profile. It goes first, so a failure leaves the resource
    // tracked and the delete can be repeated (a profile already gone counts as deleted).
    const profile = resource.inference_profile;
    if (profile?.type === 'APPLICATION') await deleteApplicationProfile(profile.arn);
    if (!(await removeResource(resource))) throw notTracked();
    return {
      message:
        profile?.type === 'APPLICATION'
          ? `Resource "${resource.name}" removed from tracking; its application inference profile ${profile.arn} was deleted`
          : `Resource "${resource.name}" removed from tracking; nothing was deleted on the ${resource.type} platform`,
      action,
      // docs/openapi.yaml: the control status word is updating or deleting; the removal is already complete.
      status: 'deleting',
      resourceId: id,
    };
  }

  const synced = await syncDedicated(resource, now);
  if (synced.kind === 'gone' && synced.reason === 'deleted') throw deletedError(synced.resource);
  const current = synced.resource;
  // Stopped by a guardrail, or deleted behind the service's back: no endpoint, its configuration kept.
  const absent = Boolean(current.stopped || current.vanished_at);
  const decision = decideControl(current.type, action, confirm, current.status, absent);
  if (decision.kind === 'refuse') throw refusal(decision);
  if (decision.kind !== 'platform') throw new Error('unreachable');

  if (decision.operation === 'recreate') {
    if (!current.endpoint_config_name) {
      throw new Conflict(
        `Endpoint "${current.endpoint_name}" cannot be created again: its configuration is not known to this service; delete the resource (confirm: true) and deploy it again`,
      );
    }
    const price = await instancePriceOf(current);
    if (budgetReached(current, price, now)) {
      throw new Conflict(
        `The monthly budget of ${money(current.monthly_budget_usd ?? 0)} is spent (${money(monthToDate(current, price, now).usd)} this month): raise or clear monthlyBudgetUsd with PATCH /api/resources/${id} before starting`,
      );
    }
  }

  // stop never gets here (decideControl refuses it).
  const op = action as Exclude<ControlAction, 'stop'>;
  const at = now.toISOString();
  const billing = billingAfter(current, { billable: isBillable(decision.next), instanceCount: current.instance_count }, now);
  const claimed = await claimOperation(id, {
    from: current.status,
    to: decision.next,
    action: op,
    at,
    staleBefore: staleClaimBefore(now),
    billing: billing ? { next: billing, expectedSince: current.billable_since } : undefined,
  });
  if (!claimed) {
    const latest = await getTrackedResource(id);
    if (!latest) throw notTracked();
    throw new Conflict(`Resource is currently ${latest.status}; wait until that operation completes (poll the status endpoint) and try again`);
  }

  if (absent && decision.operation === 'delete') return deleteStopped(current);

  if (decision.operation === 'recreate' && synced.kind === 'present' && synced.description) {
    // The automatic stop's DeleteEndpoint still runs, and nothing can be created under that name until
    // it has finished: the start is accepted now (Creating, billed from now as any start) and carried
    // out by the first status read or reconciler pass that finds the endpoint gone (./sync.ts).
    await queueClaimedOperation(id, { action: op, at, from: current.status });
    return { message: MESSAGES.queued(current.endpoint_name), action, status: decision.word, resourceId: id };
  }

  try {
    if (decision.operation === 'delete') await endpointsOf(current.type).delete(current.endpoint_name);
    else if (decision.operation === 'recreate')
      await endpointsOf(current.type).recreate(current.endpoint_name, current.endpoint_config_name ?? '', id);
    else await endpointsOf(current.type).restart(current.endpoint_name);
  } catch (err) {
    await rollBackClaim(current, decision.next);
    if (decision.operation === 'recreate') recreateRefused(current, err);
    await explainRefusal(current, err);
  }
  // The platform has accepted: from here on its word wins. If this write fails the claim simply
  // expires (CLAIM_STALE_MS); the operation is under way either way, so the answer stays a success.
  // A start or restart is activity: the idle clock starts again from now; a start also clears a
  // guardrail's stop or the mark of an endpoint deleted behind the service's back.
  const effects =
    decision.operation === 'delete'
      ? {}
      : {
          stopped: null,
          active_since: at,
          idle_check_after: null,
          ...(current.vanished_at ? { vanished_at: null, failure_reason: null } : {}),
        };
  await confirmOperationRequested(id, { action: op, at, from: current.status }, effects).catch((err: Error) =>
    logger.warn({ message: 'control bookkeeping write failed', resourceId: id, error: err.message }),
  );
  const message = decision.operation === 'recreate' ? MESSAGES.recreate(current.endpoint_name) : MESSAGES[op](current.endpoint_name);
  return { message, action, status: decision.word, resourceId: id };
}

/**
 * Delete of a resource whose endpoint is already gone (a guardrail stopped it, or it was deleted
 * behind the service's back): the kept configuration and model are deleted and the resource leaves
 * tracking at once.
 */
async function deleteStopped(r: TrackedResource) {
  if (r.endpoint_config_name) await endpointsOf(r.type).deleteRetained(r.endpoint_config_name);
  await removeResource(r);
  return {
    message: `Resource "${r.name}" removed from tracking: its endpoint was already ${r.stopped ? 'stopped' : 'gone from the platform'}; its kept configuration and model were deleted`,
    action: 'delete' as const,
    status: 'deleting',
    resourceId: r.id,
  };
}

async function rollBackClaim(before: TrackedResource, claimedStatus: SpecStatus): Promise<void> {
  await releaseClaim({ ...before, health: healthOf(before.status) }, claimedStatus, new Date().toISOString());
}

/**
 * CreateEndpoint from the kept configuration was refused because that configuration is gone too, or
 * because an endpoint of that name exists again: 409 saying what to do. Anything else falls through.
 */
function recreateRefused(r: TrackedResource, err: unknown): void {
  // The platform's own words are the UpstreamError's details.
  const message = `${(err as Error)?.message ?? ''} ${(err as { details?: string })?.details ?? ''}`;
  if (/Could not find endpoint configuration/i.test(message)) {
    throw new Conflict(
      `Endpoint "${r.endpoint_name}" cannot be created again: its configuration no longer exists on the dedicated platform either; delete the resource (confirm: true) and deploy it again`,
    );
  }
  if (/already existing endpoint/i.test(message)) {
    throw new Conflict(`An endpoint named "${r.endpoint_name}" exists on the dedicated platform again; read the status, which takes it over`);
  }
}

/** The platform refused: gone (404), busy after all (409), or a platform failure (502). */
async function explainRefusal(before: TrackedResource, err: unknown): Promise<never> {
  const fresh = await getTrackedResource(before.id);
  if (fresh) {
    const synced = await syncDedicated(fresh).catch(() => undefined);
    if (synced?.kind === 'gone' && synced.reason === 'deleted') throw deletedError(synced.resource);
    if (synced?.kind === 'gone') {
      throw new Conflict(
        `Endpoint "${before.endpoint_name}" no longer exists on the dedicated platform (deleted outside this service): the resource is OutOfService; start creates it again from its kept configuration`,
      );
    }
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
