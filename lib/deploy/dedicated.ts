import { config } from '../../core/config';
import { DataError } from '../../tables/errors';
import { BadRequest, Conflict, HttpError, UpstreamError } from '../http/errors';
import { logger } from '../../core/observability';
import { dedicated } from '../platforms/dedicated';
import type { DedicatedDeploySpec, DedicatedModelEntry } from '../platforms/types';
import { getInstancePrice, pricedInstanceTypes } from '../pricing/service';
import { healthOf, specStatus } from '../resources/lifecycle';
import { syncDedicated } from '../resources/sync';
import { markDeployStarted, removeResource, type TrackedResource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { DRY_RUN_NOTE, newResource } from './common';
import { hourlyEstimate } from './estimate';
import { checkEndpointName } from './names';
import { registerResource, type HolderGone } from './register';

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
  /** true (the default) returns the plan only. */
  dryRun: boolean;
}

interface Checked {
  spec: DedicatedDeploySpec;
  hourly: number;
  modelPackage?: DedicatedModelEntry;
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
    modelPackage = await dedicated.describeModelPackage(input.modelPackageArn);
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

function plan({ spec, hourly, modelPackage }: Checked) {
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
    region: dedicated.region,
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
    endpoint: dedicated.endpointUrl(spec.endpointName),
    steps: [
      `Create the model${spec.modelPackageArn ? ' from the model package' : ' from the inference image'}, in the VPC above, with the execution role`,
      `Create an endpoint configuration: ${spec.instanceCount} x ${spec.instanceType}`,
      `Create the endpoint "${spec.endpointName}": Creating for 5-10 minutes, then InService`,
    ],
    estimatedCost: hourlyEstimate(spec.instanceType, spec.instanceCount, hourly),
    warnings,
  };
}

/**
 * POST /api/deploy/dedicated (spec 4.3). A real deploy:
 *   1. takes the name: the resource is written (Creating, deploy_state reserved) with its name guard
 *      in one transaction, so of concurrent deploys of one name exactly one gets further (409 for the rest);
 *   2. asks the platform to create model, endpoint configuration and endpoint (it returns at Creating);
 *   3. marks the resource started.
 * If the platform refuses, the reservation is removed again (name free, nothing half-written) and
 * the answer is a 500 saying why. The endpoint's creation is not waited for.
 */
export async function deployDedicated(input: DedicatedDeployRequest, user: User, now = new Date()) {
  const checked = await check(input);
  if (input.dryRun) return { success: true, dryRun: true, plan: plan(checked), message: DRY_RUN_NOTE };

  const { spec, modelPackage } = checked;
  const resource = newResource(
    {
      name: spec.endpointName,
      type: 'dedicated',
      status: 'Creating',
      health: 'unknown',
      endpoint_url: dedicated.endpointUrl(spec.endpointName),
      region: dedicated.region,
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
    },
    user,
    now,
  );
  await registerResource(resource, endpointGone);

  let arn: string;
  try {
    if (await dedicated.describe(spec.endpointName)) {
      await removeResource(resource);
      throw new Conflict(`An endpoint named "${spec.endpointName}" already exists on the dedicated platform but is not tracked by this service`);
    }
    arn = (await dedicated.deploy(spec)).arn;
  } catch (err) {
    if (err instanceof Conflict) throw err;
    return deployFailed(resource, err);
  }
  // Only the deploy bookkeeping: the status may already have been moved on by a status read. The
  // endpoint is being created whatever happens here, so a failed write is logged, not reported: a
  // resource left `reserved` is still synced from the platform as long as its endpoint exists.
  await markDeployStarted(resource.id, arn).catch((err: Error) =>
    logger.warn({ message: 'deploy bookkeeping write failed', resourceId: resource.id, error: err.message }),
  );
  return {
    success: true,
    message: `Endpoint creation started for "${spec.endpointName}": it is Creating and takes 5-10 minutes; poll GET /api/resources/${resource.id}/status until InService`,
    endpointName: spec.endpointName,
    endpoint: resource.endpoint_url,
    id: resource.id,
    status: 'Creating',
    instanceType: spec.instanceType,
    instanceCount: spec.instanceCount,
    region: resource.region,
  };
}

/**
 * A dedicated name stands while its endpoint exists: one DescribeEndpoint, only when the name is held.
 * A `deleted` holder has already left tracking; a vanished endpoint's marker record gives way.
 */
const endpointGone: HolderGone = async (holder) => {
  const synced = await syncDedicated(holder);
  if (synced.kind !== 'gone') return false;
  if (synced.reason === 'vanished') await removeResource(holder);
  return true;
};

async function deployFailed(resource: TrackedResource, err: unknown): Promise<never> {
  const name = resource.endpoint_name;
  // The platform deletes what it had created when a step fails; if the endpoint exists all the same
  // (an ambiguous timeout), it stays tracked so that it can be seen and deleted, never leaked.
  const leftover = await dedicated.describe(name).catch(() => undefined);
  if (leftover) {
    const status = specStatus(leftover.status);
    await markDeployStarted(resource.id, leftover.arn, { status, health: healthOf(status) });
    throw new UpstreamError(
      'dedicated',
      `Deployment of endpoint "${name}" reported a failure after the endpoint was created; it is tracked as resource ${resource.id}: check its status, or delete it`,
      500,
    );
  }
  await removeResource(resource);
  logger.warn({ message: 'dedicated deploy refused; reservation released', resourceId: resource.id, error: (err as Error)?.message });
  if (err instanceof UpstreamError) {
    throw new UpstreamError(err.platform, `Deployment of endpoint "${name}" failed: ${err.message}`, 500, err.details, err.upstreamStatus);
  }
  if (err instanceof HttpError || err instanceof DataError) throw err;
  throw new UpstreamError('dedicated', `Deployment of endpoint "${name}" failed`, 500);
}
