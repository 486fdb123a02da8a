import { randomUUID } from 'node:crypto';
import type { PlatformName } from '../platforms/types';
import type { TrackedResource } from '../../tables/resources';
import type { User } from '../../tables/users';
import { defaultAccess } from '../calls/access';

/**
 * A new tracked resource with every optional attribute empty, and its platform's default access written
 * out (dedicated: admins only until an admin grants more; managed and hosted: everyone).
 */
export function newResource(
  fields: Pick<TrackedResource, 'name' | 'status' | 'health' | 'endpoint_url' | 'region' | 'model_name' | 'model_id' | 'endpoint_name'> &
    Partial<TrackedResource> & { type: PlatformName },
  user: User,
  now: Date,
): TrackedResource {
  const at = now.toISOString();
  return {
    id: randomUUID(),
    instance_type: null,
    instance_count: null,
    created_by: user.id,
    created_at: at,
    last_updated: at,
    failure_reason: null,
    deploy_state: null,
    endpoint_arn: null,
    model_package_arn: null,
    inference_image: null,
    model_data_url: null,
    execution_role_arn: null,
    operation: null,
    vanished_at: null,
    chat_count: 0,
    chat_latency_ms_total: 0,
    last_chat_at: null,
    idle_timeout_minutes: null,
    monthly_budget_usd: null,
    billing_month: null,
    billed_instance_seconds: 0,
    billable_since: null,
    stopped: null,
    endpoint_config_name: null,
    active_since: null,
    idle_check_after: null,
    platform_modified_at: null,
    variant_names: null,
    client_token: null,
    access: defaultAccess(fields.type),
    capabilities: null,
    inference_profile: null,
    ...fields,
  };
}

export const DRY_RUN_NOTE = 'Dry run: nothing was created. Send the same request with dryRun: false to deploy.';
