import { randomUUID } from 'node:crypto';
import { BadRequest, Conflict, NotFound } from '../errors';
import { logger } from '../../core/observability';
import { newResource } from '../deploy/common';
import { dedicatedNameGone } from '../deploy/dedicated';
import { checkEndpointName } from '../deploy/names';
import { registerResource } from '../deploy/register';
import { endpointsOf } from '../platforms/endpoints';
import { deleteApplicationProfile, profileTags } from '../platforms/managed/profiles';
import { ownerTags, ownership } from '../platforms/tags';
import { resourceView } from '../resources/abilities';
import { monthOf, isBillable } from '../resources/billing';
import { healthOf, specStatus } from '../resources/lifecycle';
import { getInstancePrice } from '../pricing/service';
import { getOrphan, listOrphans, removeOrphan, type Orphan } from '../../tables/orphans';
import { lastReconcilerPass } from '../../tables/reconciler';
import { getTrackedResource, heldNames } from '../../tables/resources';
import type { User } from '../../tables/users';
import { usdTimes } from '../../core/money';

/**
 * Orphans (admin): endpoints on the dedicated platform, and Bedrock application inference profiles,
 * that carry this service's tags but no tracked resource, as the reconciler found them
 * (lib/reconcile/pass.ts, lib/reconcile/profiles.ts). A profile costs nothing itself and is only deleted. An orphan bills like any endpoint,
 * so the list shows what each costs an hour; admins adopt one (it becomes a tracked resource, with
 * guardrails if given) or delete it on the platform. Both check the platform again first: an orphan
 * that is gone, or no longer ours, is never adopted or deleted.
 */

/** The platform whose endpoints carry the service's tags (the one that runs endpoints). */
const PLATFORM = 'dedicated';

async function orphanView(o: Orphan) {
  const price = o.instance_type ? await getInstancePrice(o.instance_type) : undefined;
  return {
    kind: o.kind ?? 'endpoint',
    endpoint_name: o.endpoint_name,
    endpoint_arn: o.endpoint_arn,
    status: o.status,
    platform_created_at: o.platform_created_at,
    found_at: o.found_at,
    resource_id: o.resource_id,
    instance_type: o.instance_type,
    instance_count: o.instance_count,
    /** What it bills an hour while it exists (null when its instance type has no price). */
    hourly_cost_usd: o.kind === 'inference_profile' ? 0 : price === undefined ? null : usdTimes(price, o.instance_count ?? 1),
    ...(o.tags ? { tags: o.tags } : {}),
  };
}

/** GET /api/admin/orphans: one page, with when the reconciler last looked. */
export async function listOrphanEndpoints(limit: number, cursor?: string) {
  const [{ orphans, nextCursor }, last] = await Promise.all([listOrphans(limit, cursor), lastReconcilerPass()]);
  return {
    orphans: await Promise.all(orphans.map(orphanView)),
    count: orphans.length,
    nextCursor,
    lastReconciledAt: last?.at ?? null,
  };
}

/** The orphan as the platform shows it now: 404 when unknown or gone, 409 when no longer ours or tracked meanwhile. */
async function recordedOrphan(endpointName: string): Promise<Orphan> {
  const orphan = await getOrphan(endpointName);
  if (!orphan) throw new NotFound(`No orphan named "${endpointName}": GET /api/admin/orphans lists them`);
  return orphan;
}

/**
 * An application inference profile left behind, as Bedrock shows it now: 404 when it is gone, 409
 * when it no longer carries this service's tags or the resource its tags name records it by now.
 */
async function confirmedProfileOrphan(orphan: Orphan): Promise<void> {
  const tags = await profileTags(orphan.endpoint_arn);
  if (!tags) {
    await removeOrphan(orphan.endpoint_name);
    throw new NotFound(`Inference profile "${orphan.endpoint_name}" no longer exists on Bedrock`, 'Its orphan record has been removed');
  }
  const owner = ownership(tags);
  if (!owner.ours) {
    throw new Conflict(`Inference profile "${orphan.endpoint_name}" no longer carries this service's tags: it is not this service's to delete`);
  }
  const holder = owner.resourceId ? await getTrackedResource(owner.resourceId) : undefined;
  if (holder?.inference_profile?.arn === orphan.endpoint_arn) {
    await removeOrphan(orphan.endpoint_name);
    throw new Conflict(`Inference profile "${orphan.endpoint_name}" is recorded by resource ${holder.id}: deleting that resource deletes it`);
  }
}

async function confirmedOrphan(endpointName: string) {
  checkEndpointName(PLATFORM, endpointName);
  const orphan = await recordedOrphan(endpointName);
  const description = await endpointsOf(PLATFORM).describe(orphan.endpoint_name);
  if (!description) {
    await removeOrphan(orphan.endpoint_name);
    throw new NotFound(`Endpoint "${orphan.endpoint_name}" no longer exists on the dedicated platform`, 'Its orphan record has been removed');
  }
  const tags = await endpointsOf(PLATFORM).tagsOf(description.arn);
  if (!tags || !ownership(tags).ours) {
    throw new Conflict(`Endpoint "${orphan.endpoint_name}" no longer carries this service's tags: it is not this service's to adopt or delete`);
  }
  if ((await heldNames(PLATFORM, [orphan.endpoint_name])).size > 0) {
    await removeOrphan(orphan.endpoint_name);
    throw new Conflict(`Endpoint "${orphan.endpoint_name}" is tracked now (adopted or deployed meanwhile)`);
  }
  return { orphan, description, tags };
}

/** POST /api/admin/orphans/{endpointName}/adopt's input. */
export interface AdoptOrphanRequest {
  idleTimeoutMinutes?: number;
  monthlyBudgetUsd?: number;
}

/**
 * POST /api/admin/orphans/{endpointName}/adopt: the endpoint becomes a tracked resource under its own
 * name (the resource id its tags name, when that id is free), billed from now, with the guardrails
 * given. Its tags are brought up to date with the resource id.
 */
export async function adoptOrphan(endpointName: string, input: AdoptOrphanRequest, user: User, now = new Date()) {
  if ((await recordedOrphan(endpointName)).kind === 'inference_profile') {
    throw new BadRequest(
      `"${endpointName}" is an application inference profile, not an endpoint: it cannot be adopted. Delete it (DELETE /api/admin/orphans/{name}?confirm=true), or deploy its model again with inferenceProfile "application"`,
    );
  }
  const { orphan, description, tags } = await confirmedOrphan(endpointName);
  const status = specStatus(description.status);
  const at = now.toISOString();
  const taggedId = ownership(tags).resourceId;
  const id = taggedId && /^[0-9a-f-]{36}$/i.test(taggedId) && !(await getTrackedResource(taggedId)) ? taggedId : randomUUID();
  const resource = newResource(
    {
      id,
      name: orphan.endpoint_name,
      type: PLATFORM,
      status,
      health: healthOf(status),
      endpoint_url: endpointsOf(PLATFORM).endpointUrl(orphan.endpoint_name),
      region: endpointsOf(PLATFORM).region,
      instance_type: description.instanceType ?? orphan.instance_type,
      instance_count: description.instanceCount ?? orphan.instance_count,
      model_name: description.configName || orphan.endpoint_name,
      model_id: description.configName,
      endpoint_name: orphan.endpoint_name,
      deploy_state: 'started',
      endpoint_arn: description.arn,
      idle_timeout_minutes: input.idleTimeoutMinutes ?? null,
      monthly_budget_usd: input.monthlyBudgetUsd ?? null,
      // Billed (in this service's books) and idle-watched from the adoption on.
      billing_month: monthOf(now),
      billable_since: isBillable(status) ? at : null,
      active_since: at,
      platform_modified_at: description.lastModifiedAt,
      variant_names: description.variantNames.length > 0 ? description.variantNames : null,
    },
    user,
    now,
  );
  await registerResource(resource, dedicatedNameGone);
  await removeOrphan(orphan.endpoint_name);
  if (taggedId !== resource.id) {
    // The tags then name the resource that tracks the endpoint; a failure only leaves an older id there.
    await endpointsOf(PLATFORM)
      .tag(description.arn, ownerTags(orphan.endpoint_name, resource.id))
      .catch((err: Error) => logger.warn({ message: 'adopted endpoint not re-tagged', endpointName, error: err.message }));
  }
  return {
    message: `Endpoint "${orphan.endpoint_name}" adopted: it is tracked as resource ${resource.id}`,
    id: resource.id,
    resource: resourceView(resource, user),
  };
}

/**
 * DELETE /api/admin/orphans/{endpointName}?confirm=true: deletes the endpoint (then its configuration
 * and model) on the platform and the record. An endpoint mid-operation cannot be deleted yet (409).
 */
export async function deleteOrphan(endpointName: string, confirm: boolean) {
  if (!confirm) throw new BadRequest('Delete requires confirm=true');
  const recorded = await recordedOrphan(endpointName);
  if (recorded.kind === 'inference_profile') {
    await confirmedProfileOrphan(recorded);
    await deleteApplicationProfile(recorded.endpoint_arn);
    await removeOrphan(recorded.endpoint_name);
    return {
      message: `Application inference profile "${recorded.endpoint_name}" deleted on Bedrock; its orphan record is removed`,
      endpointName: recorded.endpoint_name,
      status: 'deleting' as const,
    };
  }
  const { orphan, description } = await confirmedOrphan(endpointName);
  const status = specStatus(description.status);
  if (status === 'Creating' || status === 'Updating') {
    throw new Conflict(`Endpoint "${orphan.endpoint_name}" is currently ${status}; delete it once that operation completes`);
  }
  if (status !== 'Deleting') await endpointsOf(PLATFORM).delete(orphan.endpoint_name);
  await removeOrphan(orphan.endpoint_name);
  return {
    message: `Deletion of endpoint "${orphan.endpoint_name}" initiated on the dedicated platform; its orphan record is removed`,
    endpointName: orphan.endpoint_name,
    status: 'deleting' as const,
  };
}
