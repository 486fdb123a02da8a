import { config } from '../../core/config';
import { DataError, isDataError } from '../../tables/errors';
import { BadRequest, Conflict, DomainError, UpstreamError } from '../errors';
import { logger } from '../../core/observability';
import { dedicatedEndpoints } from '../platforms/dedicated/endpoints';
import { dedicatedCatalogue } from '../platforms/dedicated/catalogue';
import { dedicatedCapabilities } from '../platforms/dedicated/features';
import { ownerTags, ownership } from '../platforms/tags';
import type { DedicatedDeploySpec, DedicatedModelEntry, EndpointDescription } from '../platforms/types';
import { usd } from '../pricing/money';
import { getInstancePrice, pricedInstanceTypes } from '../pricing/service';
import { healthOf, specStatus } from '../resources/lifecycle';
import { stateChangeTime } from '../resources/timing';
import { syncDedicated } from '../resources/sync';
import { removeOrphan } from '../../tables/orphans';
import { getNameHolder, getTrackedResource, markDeployStarted, removeResource, type TrackedResource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { monthOf } from '../resources/billing';
import { DRY_RUN_NOTE, newResource } from './common';
import { hourlyEstimate } from './estimate';
import { checkEndpointName } from './names';
import { registerResource, type HolderGone } from './register';
import { usdTimes } from '../../core/money';

/** POST /api/deploy/dedicated's input, as validated by its schema (functions/deploy/schemas.ts). */
export interface DedicatedDeployRequest {
  endpointName: string;
  instanceType: string;
  instanceCount: number;
  modelPackageArn?: string;
  inferenceImage?: string;
  modelDataUrl?: string;
  executionRoleArn?: string;
  /** Gated public-hub models need their licence accepted explicitly. */
  acceptEula?: boolean;
  /** Stop the endpoint after this many minutes without invocations (1 to 10080). */
  idleTimeoutMinutes?: number;
  /** Stop the endpoint when the month's cost reaches this many USD. */
  monthlyBudgetUsd?: number;
  /**
   * The client's id for this deploy (like AWS's ClientToken): sent again with the same request after
   * a timeout, it gets the first answer instead of a 409.
   */
  clientToken?: string;
  /** true (the default) returns the plan only. */
  dryRun: boolean;
}

interface Checked {
  /** Everything but the resource id, which a real deploy draws when it takes the name. */
  spec: Omit<DedicatedDeploySpec, 'resourceId'>;
  hourly: number;
  modelPackage?: DedicatedModelEntry;
  guardrails: { idleTimeoutMinutes: number | null; monthlyBudgetUsd: number | null };
}

/** Everything that can be refused without creating anything: 400s, in the order a client fixes them. */
async function check(input: DedicatedDeployRequest): Promise<Checked> {
  const { subnetIds, securityGroupIds } = config.dedicated;
  if (subnetIds.length === 0 || securityGroupIds.length === 0) {
    throw new BadRequest(
      'The dedicated network configuration is missing: DEDICATED_SUBNET_IDS and DEDICATED_SECURITY_GROUP_IDS must be set in the service configuration',
    );
  }
  const roleArn = input.executionRoleArn ?? config.dedicated.executionRoleArn;
  if (!roleArn) throw new BadRequest('No execution role: set DEDICATED_EXECUTION_ROLE_ARN in the service configuration or pass executionRoleArn');
  checkEndpointName('dedicated', input.endpointName);

  const hourly = await getInstancePrice(input.instanceType);
  if (hourly === undefined) {
    throw new BadRequest(`Unknown instance type "${input.instanceType}"`, `Priced instance types: ${(await pricedInstanceTypes()).join(', ')}`);
  }

  let modelPackage: DedicatedModelEntry | undefined;
  if (input.modelPackageArn) {
    modelPackage = await dedicatedCatalogue.describeModelPackage(input.modelPackageArn);
    if (!modelPackage) throw new BadRequest(`Unknown model package "${input.modelPackageArn}": see GET /api/models/dedicated?source=account`);
    const supported = modelPackage.supportedRealtimeInferenceInstanceTypes;
    // SageMaker refuses an endpoint configuration with an instance type the package does not list.
    if (supported.length > 0 && !supported.includes(input.instanceType)) {
      throw new BadRequest(
        `Instance type "${input.instanceType}" is not supported by model package "${modelPackage.displayName}"`,
        `Supported real-time instance types: ${supported.join(', ')}`,
      );
    }
  } else if (!input.inferenceImage) {
    throw new BadRequest('Either modelPackageArn or inferenceImage is required');
  }

  return {
    hourly,
    modelPackage,
    guardrails: { idleTimeoutMinutes: input.idleTimeoutMinutes ?? null, monthlyBudgetUsd: input.monthlyBudgetUsd ?? null },
    spec: {
      endpointName: input.endpointName,
      instanceType: input.instanceType,
      instanceCount: input.instanceCount,
      executionRoleArn: roleArn,
      subnetIds,
      securityGroupIds,
      modelPackageArn: input.modelPackageArn,
      inferenceImage: input.inferenceImage,
      modelDataUrl: input.modelDataUrl,
      acceptEula: input.acceptEula,
    },
  };
}

/** What the guardrails will do, in figures and words, for the plan. */
function guardrailPlan({ spec, hourly, guardrails }: Checked) {
  const hourlyUsd = usdTimes(hourly, spec.instanceCount);
  const { idleTimeoutMinutes, monthlyBudgetUsd } = guardrails;
  const budgetHours = monthlyBudgetUsd !== null && hourlyUsd > 0 ? Math.floor((monthlyBudgetUsd / hourlyUsd) * 10) / 10 : null;
  const effects: string[] = [];
  if (idleTimeoutMinutes !== null) {
    effects.push(
      `After ${idleTimeoutMinutes} minutes without an invocation (the platform's own metrics, so traffic that bypasses this service counts) and without a chat turn through this service, the endpoint is deleted on the platform and the resource goes OutOfService; its model and configuration are kept and action start creates it again`,
    );
  }
  if (monthlyBudgetUsd !== null) {
    effects.push(
      `The budget of ${usd(monthlyBudgetUsd)} a month buys ${budgetHours ?? 'unlimited'} hours at ${usd(hourlyUsd)} an hour; when this month's cost reaches it, the endpoint is stopped the same way (start is refused until the budget is raised or the month ends)`,
    );
  }
  if (effects.length === 0) {
    effects.push(`No guardrail: the endpoint bills ${usd(hourlyUsd)} an hour until it is deleted, used or not`);
  }
  return { idleTimeoutMinutes, monthlyBudgetUsd, hourly_usd: hourlyUsd, budget_hours: budgetHours, effects };
}

function plan(checked: Checked) {
  const { spec, hourly, modelPackage } = checked;
  const warnings: string[] = [];
  if (modelPackage && modelPackage.modelApprovalStatus && modelPackage.modelApprovalStatus !== 'Approved') {
    warnings.push(`The model package's approval status is ${modelPackage.modelApprovalStatus}, not Approved`);
  }
  if (config.dedicated.executionRoleArn && spec.executionRoleArn !== config.dedicated.executionRoleArn) {
    warnings.push('The execution role differs from the configured one; the service may not be allowed to pass it to the platform');
  }
  if (!spec.modelPackageArn && !spec.modelDataUrl) warnings.push('No modelDataUrl: the image must contain the model itself');
  const container = modelPackage?.inferenceContainers[0];
  return {
    endpointName: spec.endpointName,
    instanceType: spec.instanceType,
    instanceCount: spec.instanceCount,
    region: dedicatedEndpoints.region,
    roleArn: spec.executionRoleArn,
    vpc: { subnets: spec.subnetIds, securityGroups: spec.securityGroupIds },
    model: {
      modelPackageArn: spec.modelPackageArn ?? null,
      inferenceImage: spec.inferenceImage ?? container?.image ?? null,
      modelDataUrl: spec.modelDataUrl ?? container?.modelDataUrl ?? null,
    },
    modelPackage: modelPackage
      ? {
          displayName: modelPackage.displayName,
          modelApprovalStatus: modelPackage.modelApprovalStatus,
          supportedRealtimeInferenceInstanceTypes: modelPackage.supportedRealtimeInferenceInstanceTypes,
          supportedContentTypes: modelPackage.supportedContentTypes,
        }
      : null,
    endpoint: dedicatedEndpoints.endpointUrl(spec.endpointName),
    steps: [
      `Create the model${spec.modelPackageArn ? ' from the model package' : ' from the inference image'}, in the VPC above, with the execution role`,
      `Create an endpoint configuration: ${spec.instanceCount} x ${spec.instanceType}`,
      `Create the endpoint "${spec.endpointName}": its status reads Creating for ${stateChangeTime()}, then InService`,
    ],
    estimatedCost: hourlyEstimate(spec.instanceType, spec.instanceCount, hourly),
    guardrails: guardrailPlan(checked),
    warnings,
  };
}

/**
 * POST /api/deploy/dedicated (docs/openapi.yaml deployDedicated). A real deploy:
 *   1. takes the name: the resource is written (Creating, deploy_state reserved) with its name guard
 *      in one transaction, so of concurrent deploys of one name exactly one gets further (409 for the rest);
 *   2. asks the platform to create model, endpoint configuration and endpoint (it returns at Creating);
 *   3. marks the resource started.
 * If the platform refuses, the reservation is removed again (name free, nothing half-written) and
 * the answer is a 500 saying why. The endpoint's creation is not waited for.
 */
export async function deployDedicated(input: DedicatedDeployRequest, user: User, now = new Date()) {
  const checked = await check(input);
  if (input.dryRun) return { dryRun: true, plan: plan(checked), message: DRY_RUN_NOTE };

  const { spec, modelPackage, guardrails } = checked;
  const at = now.toISOString();
  const resource = newResource(
    {
      name: spec.endpointName,
      type: 'dedicated',
      status: 'Creating',
      health: 'unknown',
      endpoint_url: dedicatedEndpoints.endpointUrl(spec.endpointName),
      region: dedicatedEndpoints.region,
      instance_type: spec.instanceType,
      instance_count: spec.instanceCount,
      model_name: modelPackage?.displayName ?? spec.inferenceImage ?? spec.endpointName,
      model_id: spec.modelPackageArn ?? spec.inferenceImage ?? '',
      endpoint_name: spec.endpointName,
      deploy_state: 'reserved',
      model_package_arn: spec.modelPackageArn ?? null,
      inference_image: spec.inferenceImage ?? null,
      model_data_url: spec.modelDataUrl ?? null,
      execution_role_arn: spec.executionRoleArn,
      idle_timeout_minutes: guardrails.idleTimeoutMinutes,
      monthly_budget_usd: guardrails.monthlyBudgetUsd,
      client_token: input.clientToken ?? null,
      capabilities: deployedCapabilities(spec, modelPackage),
      // Billing starts with the creation request (lib/resources/billing.ts), and so does the idle clock.
      billing_month: monthOf(now),
      billable_since: at,
      active_since: at,
    },
    user,
    now,
  );
  try {
    await registerResource(resource, dedicatedNameGone);
  } catch (err) {
    // The same deploy again (its answer was lost, the client timed out): the same answer, nothing new.
    const first = isDataError(err, 'NameTaken') && input.clientToken ? await earlierAttempt(spec, input.clientToken, user) : undefined;
    if (first) return deployAnswer(first, { repeated: true });
    throw err;
  }

  let arn: string;
  try {
    const existing = await dedicatedEndpoints.describe(spec.endpointName);
    if (existing) return await takeOverEarlierAttempt(resource, existing, spec);
    arn = (await dedicatedEndpoints.deploy({ ...spec, resourceId: resource.id })).arn;
  } catch (err) {
    if (err instanceof Conflict) throw err;
    return deployFailed(resource, err);
  }
  // Only the deploy bookkeeping: the status may already have been moved on by a status read. The
  // endpoint is being created whatever happens here, so a failed write is logged, not reported: a
  // resource left `reserved` is still synced from the platform (and by the reconciler) as long as its
  // endpoint exists.
  await markDeployStarted(resource.id, arn).catch((err: Error) =>
    logger.warn({ message: 'deploy bookkeeping write failed', resourceId: resource.id, error: err.message }),
  );
  return deployAnswer(resource);
}

/** What the deployed model can do: its container, its names, the content types its package takes. */
function deployedCapabilities(spec: Checked['spec'], modelPackage?: DedicatedModelEntry) {
  const container = modelPackage?.inferenceContainers[0];
  return dedicatedCapabilities({
    image: spec.inferenceImage ?? container?.image,
    names: [modelPackage?.displayName, spec.modelPackageArn, spec.modelDataUrl, container?.modelDataUrl, spec.inferenceImage].filter(
      (n): n is string => Boolean(n),
    ),
    contentTypes: modelPackage?.supportedContentTypes,
  });
}

/** The answer of a started deploy (a repeat gets the same, with the resource's current status). */
function deployAnswer(r: TrackedResource, o: { repeated?: boolean; message?: string } = {}) {
  const creating = `Endpoint creation started for "${r.endpoint_name}": its status reads Creating for ${stateChangeTime()}, then InService, ready for chat`;
  return {
    message:
      o.message ??
      (o.repeated ? `The same deploy of "${r.endpoint_name}" was already accepted (resource ${r.id}); nothing new was created` : creating),
    endpointName: r.endpoint_name,
    endpoint: r.endpoint_url,
    id: r.id,
    status: r.status,
    instanceType: r.instance_type as string,
    instanceCount: r.instance_count ?? 1,
    region: r.region,
    guardrails: { idle_timeout_minutes: r.idle_timeout_minutes, monthly_budget_usd: r.monthly_budget_usd },
    ...(o.repeated ? { repeated: true } : {}),
  };
}

/**
 * The resource an earlier attempt of this very deploy created: the same client token from the same
 * caller, the same name, model and capacity, still standing. A client that timed out and sends the
 * deploy again gets its answer instead of a 409, and no second endpoint. Without a client token a
 * second deploy of a taken name stays a 409 (two people deploying one name by chance must not both
 * be told they succeeded).
 */
async function earlierAttempt(spec: Checked['spec'], clientToken: string, user: User): Promise<TrackedResource | undefined> {
  const holderId = await getNameHolder('dedicated', spec.endpointName);
  const holder = holderId ? await getTrackedResource(holderId) : undefined;
  if (!holder || holder.client_token !== clientToken || holder.created_by !== user.id || holder.vanished_at || holder.status === 'Deleting') {
    return undefined;
  }
  const same =
    holder.name === spec.endpointName &&
    holder.instance_type === spec.instanceType &&
    holder.instance_count === spec.instanceCount &&
    holder.model_package_arn === (spec.modelPackageArn ?? null) &&
    holder.inference_image === (spec.inferenceImage ?? null) &&
    holder.model_data_url === (spec.modelDataUrl ?? null);
  return same ? holder : undefined;
}

/**
 * The name was free in the table but the platform has the endpoint. If this service created it (its
 * tags: service and stage) for the same instance type, it is an earlier attempt whose record was lost
 * (its answer timed out and the reservation was released): this deploy takes it over instead of
 * creating a second one. Anything else is someone else's endpoint: 409, and the name is free again.
 */
async function takeOverEarlierAttempt(resource: TrackedResource, existing: EndpointDescription, spec: Checked['spec']) {
  const tags = await dedicatedEndpoints.tagsOf(existing.arn);
  const ours = tags !== undefined && ownership(tags).ours;
  if (!ours || (existing.instanceType && existing.instanceType !== spec.instanceType)) {
    await removeResource(resource);
    throw new Conflict(
      ours
        ? `An endpoint named "${spec.endpointName}" that this service created earlier exists with another configuration (${existing.instanceType}) and is not tracked: adopt or delete it (GET /api/admin/orphans)`
        : `An endpoint named "${spec.endpointName}" already exists on the dedicated platform but is not tracked by this service`,
    );
  }
  const status = specStatus(existing.status);
  await markDeployStarted(resource.id, existing.arn, { status, health: healthOf(status), platform_modified_at: existing.lastModifiedAt });
  await dedicatedEndpoints
    .tag(existing.arn, ownerTags(spec.endpointName, resource.id))
    .catch((err: Error) => logger.warn({ message: 'taken-over endpoint not re-tagged', resourceId: resource.id, error: err.message }));
  await removeOrphan(spec.endpointName);
  return deployAnswer(
    { ...resource, status },
    {
      message: `Endpoint "${spec.endpointName}" already existed from an earlier attempt of this deploy whose answer was lost; it is now tracked as resource ${resource.id} and nothing new was created`,
    },
  );
}

/**
 * A dedicated name stands while its endpoint exists: one DescribeEndpoint, only when the name is held.
 * A `deleted` holder has already left tracking; a vanished endpoint's marker record gives way.
 */
export const dedicatedNameGone: HolderGone = async (holder) => {
  const synced = await syncDedicated(holder);
  if (synced.kind !== 'gone') return false;
  if (synced.reason === 'vanished') await removeResource(holder);
  return true;
};

async function deployFailed(resource: TrackedResource, err: unknown): Promise<never> {
  const name = resource.endpoint_name;
  // The platform deletes what it had created when a step fails; if the endpoint exists all the same
  // (an ambiguous timeout), it stays tracked so that it can be seen and deleted, never leaked.
  const leftover = await dedicatedEndpoints.describe(name).catch(() => undefined);
  if (leftover) {
    const status = specStatus(leftover.status);
    await markDeployStarted(resource.id, leftover.arn, { status, health: healthOf(status) });
    throw new UpstreamError(
      'dedicated',
      `Deployment of endpoint "${name}" reported a failure after the endpoint was created; it is tracked as resource ${resource.id}: check its status, or delete it`,
    );
  }
  await removeResource(resource);
  logger.warn({ message: 'dedicated deploy refused; reservation released', resourceId: resource.id, error: (err as Error)?.message });
  if (err instanceof UpstreamError) {
    throw err.retold(`Deployment of endpoint "${name}" failed: ${err.message}`);
  }
  if (err instanceof DomainError || err instanceof DataError) throw err;
  throw new UpstreamError('dedicated', `Deployment of endpoint "${name}" failed`);
}
