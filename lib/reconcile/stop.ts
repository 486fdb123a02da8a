import { logger } from '../../core/observability';
import { announce } from '../alerts/events';
import { recordSystemAction } from '../audit/system';
import { endpointsOf } from '../platforms/endpoints';
import type { EndpointDescription } from '../platforms/types';
import { billingAfter } from '../resources/billing';
import { healthOf, specStatus } from '../resources/lifecycle';
import { staleClaimBefore } from '../resources/sync';
import { claimOperation, confirmOperationRequested, releaseClaim, type GuardrailStop, type TrackedResource } from '../../tables/resources';
import type { Pacer } from './pacer';

/**
 * A guardrail's stop: the InService endpoint is claimed (InService -> OutOfService, operation stop,
 * with why and the configuration to recreate it from, and its billing closed) by the same conditional
 * write control calls use, so a control call and the reconciler racing on one resource have exactly
 * one winner; the loser skips (the reconciler) or gets 409 (the control call). Then DeleteEndpoint
 * alone: the endpoint stops billing, its model and configuration stay for start. If the platform
 * refuses, the claim is rolled back and the next pass tries again.
 */
export async function stopForGuardrail(
  r: TrackedResource,
  stop: Omit<GuardrailStop, 'at'>,
  known: EndpointDescription | undefined,
  pacer: Pacer,
  now: Date,
): Promise<boolean> {
  const description = known ?? (await pacer.call('DescribeEndpoint', () => endpointsOf(r.type).describe(r.endpoint_name)));
  // Changed since it was judged (gone, updating): the next pass judges again.
  if (!description || specStatus(description.status) !== 'InService') return false;

  const at = now.toISOString();
  const billing = billingAfter(r, { billable: false, instanceCount: r.instance_count }, now);
  const claimed = await claimOperation(r.id, {
    from: 'InService',
    to: 'OutOfService',
    action: 'stop',
    at,
    staleBefore: staleClaimBefore(now),
    billing: billing ? { next: billing, expectedSince: r.billable_since } : undefined,
    stopped: { ...stop, at },
    endpointConfigName: description.configName,
  });
  // A control call (or a status change) got there first: it wins.
  if (!claimed) return false;

  try {
    await pacer.call('DeleteEndpoint', () => endpointsOf(r.type).stop(r.endpoint_name));
  } catch (err) {
    await releaseClaim({ ...r, health: healthOf(r.status) }, 'OutOfService', new Date().toISOString());
    logger.warn({ message: 'guardrail stop refused by the platform; claim released', resourceId: r.id, error: (err as Error).message });
    await recordSystemAction({
      actor: 'reconciler',
      action: stop.reason === 'idle' ? 'resource.idle_stop' : 'resource.budget_stop',
      target: `${r.id} ${r.endpoint_name}`,
      reason: `${stop.detail}. The platform refused the stop (${(err as Error).message}); the next pass tries again`,
      outcome: 'failure',
      metric: { name: 'GuardrailStopsFailed', dimensions: { reason: stop.reason } },
    });
    return false;
  }
  await confirmOperationRequested(r.id, { action: 'stop', at, from: 'InService' }).catch((err: Error) =>
    logger.warn({ message: 'stop bookkeeping write failed', resourceId: r.id, error: err.message }),
  );
  await recordSystemAction({
    actor: 'reconciler',
    action: stop.reason === 'idle' ? 'resource.idle_stop' : 'resource.budget_stop',
    target: `${r.id} ${r.endpoint_name}`,
    reason: stop.detail,
    metric: { name: 'GuardrailStops', dimensions: { reason: stop.reason } },
  });
  await announce({ event: 'endpoint.stopped', resource_id: r.id, endpoint_name: r.endpoint_name, reason: stop.reason, detail: stop.detail }, now);
  return true;
}
