import type { EndpointStatus, PlatformName } from '../platforms/types';
import { traitsOf } from '../platforms/registry';

/**
 * The resource state machine (docs/architecture.md, Resource lifecycle), as pure functions so it can be read and tested in one
 * place. docs/architecture.md "Resource lifecycle" describes the same rules for people.
 *
 * Control actions per platform and status:
 *
 *   managed, hosted   delete (confirm: true)         -> removed from tracking, nothing on the platform
 *                     start, stop, restart           -> 400 (the platform runs them; always on)
 *   dedicated         stop                           -> 400 (an endpoint cannot be paused: delete it)
 *                     delete without confirm: true   -> 400
 *                     any action while Creating, Updating or Deleting -> 409 naming the status
 *                       (SageMaker refuses to update or delete an endpoint mid-operation; a second
 *                       request is refused rather than queued)
 *                     restart  InService                  -> Updating: UpdateEndpoint onto a fresh
 *                                                            copy of the endpoint's configuration,
 *                                                            which replaces the instances
 *                              Failed, OutOfService       -> 409: nothing is running to restart; use start
 *                     start    InService                  -> Updating, the same operation as restart
 *                                                            (docs/architecture.md, Resource lifecycle)
 *                              Failed, OutOfService       -> Updating: the same UpdateEndpoint, which
 *                                                            redeploys the configuration and brings a
 *                                                            failed endpoint back into service
 *                     delete   InService, Failed, OutOfService -> Deleting: DeleteEndpoint, then its
 *                                                            configuration and model; the resource
 *                                                            leaves tracking at the first status read
 *                                                            after the endpoint is gone (then 404)
 *
 *   dedicated, stopped by a guardrail (OutOfService, platform endpoint deleted, model and configuration
 *   kept), or deleted behind the service's back (OutOfService, marked vanished, configuration kept):
 *                     start    -> Creating: CreateEndpoint from the kept configuration (then InService);
 *                                 while the stop's DeleteEndpoint still runs, accepted at once and carried
 *                                 out when the deletion has finished (Creating meanwhile)
 *                     delete   -> removed from tracking at once, the kept configuration and model deleted
 *                     restart  -> 409: nothing is running to restart; use start
 *
 *   Guardrails (the reconciler, lib/reconcile): InService with no invocations for the idle timeout, or
 *   with the month's cost at the budget -> OutOfService (stopped): DeleteEndpoint only.
 */

/** The resource states (docs/architecture.md, Resource lifecycle). */
export type SpecStatus = 'InService' | 'Creating' | 'Updating' | 'Deleting' | 'Failed' | 'OutOfService';
export const SPEC_STATUSES: readonly SpecStatus[] = ['InService', 'Creating', 'Updating', 'Deleting', 'Failed', 'OutOfService'];

/** Statuses with a platform operation under way: every control action is refused (409). */
export const BUSY_STATUSES: readonly SpecStatus[] = ['Creating', 'Updating', 'Deleting'];

/**
 * SageMaker has three statuses the spec does not name; each is shown as the spec status it behaves
 * like: a platform-initiated update or a rollback is an update under way, and a failed rollback
 * leaves the endpoint failed.
 */
export function specStatus(status: EndpointStatus): SpecStatus {
  switch (status) {
    case 'SystemUpdating':
    case 'RollingBack':
      return 'Updating';
    case 'UpdateRollbackFailed':
      return 'Failed';
    default:
      return status;
  }
}

/** docs/openapi.yaml Resource: healthy when InService; unknown otherwise (while updating nothing is known for sure). */
export function healthOf(status: EndpointStatus): 'healthy' | 'unknown' {
  return status === 'InService' ? 'healthy' : 'unknown';
}

export type ControlAction = 'start' | 'stop' | 'restart' | 'delete';

export type ControlDecision =
  | { kind: 'refuse'; statusCode: 400 | 409; message: string }
  | { kind: 'untrack' }
  | {
      kind: 'platform';
      /** recreate: CreateEndpoint from the kept configuration (after a guardrail's stop, or a vanished endpoint). */
      operation: 'restart' | 'delete' | 'recreate';
      next: 'Updating' | 'Deleting' | 'Creating';
      word: 'updating' | 'deleting' | 'creating';
    };

const refuse = (statusCode: 400 | 409, message: string): ControlDecision => ({ kind: 'refuse', statusCode, message });

/**
 * What a control request does. Called first without a status (the checks that need no platform
 * call: action matrix and confirmation), then with the endpoint's current status and whether its
 * platform endpoint is absent with its configuration kept (stopped by a guardrail, or vanished).
 */
export function decideControl(type: PlatformName, action: ControlAction, confirm: boolean, status?: EndpointStatus, absent = false): ControlDecision {
  if (traitsOf(type).lifecycle !== 'endpoint') {
    if (action !== 'delete') {
      return refuse(
        400,
        `Action '${action}' is not supported on ${type} resources: the platform runs them and they are always on; the only action is delete`,
      );
    }
    if (!confirm) return refuse(400, 'Delete requires confirm: true');
    return { kind: 'untrack' };
  }
  if (action === 'stop') {
    return refuse(
      400,
      "Action 'stop' is not supported on dedicated resources: an endpoint cannot be paused and bills until it is deleted; use delete instead",
    );
  }
  if (action === 'delete' && !confirm) return refuse(400, 'Delete requires confirm: true');
  if (status === undefined) {
    return action === 'delete'
      ? { kind: 'platform', operation: 'delete', next: 'Deleting', word: 'deleting' }
      : { kind: 'platform', operation: 'restart', next: 'Updating', word: 'updating' };
  }
  const current = specStatus(status);
  if (BUSY_STATUSES.includes(current)) {
    return refuse(409, `Resource is currently ${current}; wait until that operation completes (poll the status endpoint) and try again`);
  }
  if (action === 'delete') return { kind: 'platform', operation: 'delete', next: 'Deleting', word: 'deleting' };
  if (absent && action === 'start') return { kind: 'platform', operation: 'recreate', next: 'Creating', word: 'creating' };
  if (action === 'restart' && current !== 'InService') {
    return refuse(409, `Resource is currently ${current}: restart needs an InService endpoint; use start to redeploy it`);
  }
  return { kind: 'platform', operation: 'restart', next: 'Updating', word: 'updating' };
}
