import { cacheTtlsOfResource, capabilitiesOf, maxOutputTokensOf, serviceTiersOfResource } from '../platforms/capabilities';
import { describePlatform, traitsOf } from '../platforms/registry';
import { isAdminRole } from '../calls/access';
import { publicResource, type TrackedResource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { decideControl, type ControlAction } from './lifecycle';

/**
 * What a resource can do, carried in every resource payload (docs/openapi.yaml ResourceAbilities) so
 * that a client (the console) reads it instead of deciding by the platform's name:
 *
 * - `lifecycle`: `endpoint` (the service runs infrastructure with a status of its own: start, restart,
 *   guardrails, metrics) or `access` (the platform runs the model; the resource is access to it, always
 *   InService, and deleting it only stops tracking);
 * - `billing`: `per_hour` (instances bill until deleted, called or not) or `per_token`;
 * - `capabilities`: what its model does (lib/platforms/capabilities.ts, the same facts the metered call
 *   refuses a request by);
 * - `actions`: what this caller may do to it now, given its state: the control actions the state rules
 *   accept (./lifecycle.ts decideControl, so the list and the refusals cannot disagree), changing its
 *   guardrails, changing who may use it. Admins only: a user may do none of them.
 */

type ResourceAction = ControlAction | 'update_guardrails' | 'update_access';

const CONTROL_ACTIONS: readonly ControlAction[] = ['start', 'stop', 'restart', 'delete'];

type Described = Pick<TrackedResource, 'type' | 'status' | 'model_id' | 'inference_image' | 'capabilities'> &
  Partial<Pick<TrackedResource, 'stopped' | 'vanished_at'>>;

function abilitiesOf(resource: Described, caller: Pick<User, 'role'>) {
  const { lifecycle, billing } = describePlatform(resource.type);
  const can = capabilitiesOf(resource);
  return {
    lifecycle,
    billing,
    capabilities: {
      chat: can.chat,
      embeddings: can.embeddings,
      streaming: can.stream,
      tools: can.tools,
      json_output: can.jsonOutput,
      image_input: can.imageInput,
      prompt_caching: cacheTtlsOfResource(resource).length > 0,
      cache_ttls: [...cacheTtlsOfResource(resource)],
      service_tiers: [...serviceTiersOfResource(resource)],
      max_output_tokens: maxOutputTokensOf(resource) ?? null,
    },
    actions: isAdminRole(caller.role) ? actionsOf(resource) : [],
  };
}

/** A resource as every answer shows it: the spec's fields and what it can do. */
export function resourceView(resource: Described & Parameters<typeof publicResource>[0], caller: Pick<User, 'role'>) {
  return { ...publicResource(resource), ...abilitiesOf(resource, caller) };
}

function actionsOf(resource: Described): ResourceAction[] {
  // Stopped by a guardrail, or deleted behind the service's back: no endpoint, its configuration kept.
  const absent = Boolean(resource.stopped || resource.vanished_at);
  const accepted = CONTROL_ACTIONS.filter((a) => decideControl(resource.type, a, true, resource.status, absent).kind !== 'refuse');
  // Start on a running endpoint is accepted as a restart (the spec's row); it is listed once, as restart.
  const control: ResourceAction[] = accepted.includes('restart') ? accepted.filter((a) => a !== 'start') : accepted;
  const endpoint = traitsOf(resource.type).lifecycle === 'endpoint';
  return [...control, ...(endpoint && resource.status !== 'Deleting' ? ['update_guardrails' as const] : []), 'update_access'];
}
