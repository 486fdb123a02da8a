import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointStatus, ModelCapabilities, PlatformName } from '../core/vocabulary';
import { GSI1, GSI2, TABLE, db, decodeCursor, encodeCursor, getItems } from './client';
import { nameGuardKey } from './partitions';
import { attribute, defineEntity, type RecordOf } from './entity';
import { DataError } from './errors';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';

/**
 * Tracked (deployed) resources, docs/openapi.yaml Resource.
 *
 *   PK RES#<id>                        SK META     the resource
 *                                                  GSI1 RESOURCES / <created_at>#<id>        (all, newest first)
 *                                                  GSI2 RESTYPE#<type> / <created_at>#<id>   (one platform)
 *   PK RESNAME#<type>#<lower name>     SK UNIQUE   endpoint-name guard, points at the resource
 *                                                  (or, `routeId`, at a route: tables/routes.ts)
 *
 * The resource and its name guard are written and removed in one transaction, so an endpoint name is
 * taken at most once per platform even under concurrent deploys. Names compare case-insensitively
 * because SageMaker lower-cases them in ARNs.
 *
 * After creation the item is only ever changed with UpdateItem on named attributes: the stream
 * aggregator (tables/writes/aggregates.ts) adds to `chat_count` and `chat_latency_ms_total` and moves
 * `last_chat_at` forward on the same item, in its transactions, and a Put here would wipe them.
 *
 * An absent attribute and a null field are the same thing: new items are written without their null
 * fields and patches REMOVE what they set to null, so conditions can say `attribute_not_exists`.
 */

export type ResourceStatus = EndpointStatus;

/** docs/openapi.yaml Resource's fields, in its order: what every response shows of a resource. */
const PUBLIC_RESOURCE = defineEntity({
  id: attribute.as<string>(),
  name: attribute.as<string>(),
  type: attribute.as<PlatformName>(),
  status: attribute.as<ResourceStatus>(),
  health: attribute.as<'healthy' | 'unknown' | 'unhealthy'>(),
  endpoint_url: attribute.as<string>(),
  region: attribute.as<string>(),
  instance_type: attribute.nullable<string>(),
  instance_count: attribute.nullable<number>(),
  model_name: attribute.as<string>(),
  created_at: attribute.as<string>(),
  last_updated: attribute.as<string>(),
});

/** The spec's fields plus what chat needs to reach the model (and to know what it can do), who created the resource and who may call it. */
const RESOURCE = PUBLIC_RESOURCE.with({
  /** managed/hosted: the model id chat calls use; dedicated: the model package or image deployed. */
  model_id: attribute.as<string>(),
  /** dedicated: the SageMaker endpoint name chat calls use; managed/hosted: the tracked name. */
  endpoint_name: attribute.as<string>(),
  created_by: attribute.as<string>(),
  /**
   * Who may call the resource's model (lib/calls/access.ts decides). null: never set, the platform's
   * default applies (managed and hosted: everyone; dedicated: admins only).
   */
  access: attribute.nullable<ResourceAccess>(),
  inference_image: attribute.nullable<string>(),
  /**
   * What the model can do, recorded at deploy from the platform's catalogue (lib/platforms/capabilities.ts),
   * so that a call knows without another read; null on resources tracked before it was recorded.
   */
  capabilities: attribute.nullable<ModelCapabilities>(),
  /**
   * managed: the Bedrock inference profile every call goes through (its id or, for an application
   * profile, its ARN is the runtime modelId); null: the model is called on demand by its base id.
   */
  inference_profile: attribute.nullable<ResourceInferenceProfile>(),
});

export type Resource = RecordOf<typeof RESOURCE>;

/** A managed resource's inference profile (lib/deploy/inference-profile.ts). */
export interface ResourceInferenceProfile {
  id: string;
  arn: string;
  type: 'SYSTEM_DEFINED' | 'APPLICATION';
  /** Destination Regions. */
  regions: string[];
  /** The price entry its calls are charged by. */
  priced_as: string;
}

/**
 * Who may call a resource, besides admins and super_admins (who always may): everyone, or the users
 * and the members of the teams listed. Kept on the resource item, so a call reads it with the
 * resource at no extra cost.
 */
export interface ResourceAccess {
  everyone: boolean;
  user_ids: string[];
  team_ids: string[];
  /** When an admin last set it (absent on the defaults a deploy writes). */
  updated_at?: string;
  updated_by?: string;
}

/**
 * A control operation in flight. `requesting`: the status was claimed and the platform call has not
 * returned yet, so a status read must not overwrite the claim with what the platform still reports.
 * `requested`: the platform accepted it; from then on the platform's word wins. `queued`: accepted
 * here and not yet asked of the platform, because the platform cannot take it yet (a start while the
 * automatic stop's DeleteEndpoint still runs); the first sync that finds the way clear carries it out.
 */
export interface PendingOperation {
  /** `stop`: a guardrail deleting the platform endpoint (model and configuration kept). */
  action: 'start' | 'restart' | 'delete' | 'stop';
  phase: 'requesting' | 'requested' | 'queued';
  at: string;
  /** The status the claim replaced, restored if the platform refuses the operation. */
  from: ResourceStatus;
}

/** Everything the service keeps about a resource; only the `PublicResource` fields are ever shown as 2.3. */
const TRACKED_RESOURCE = RESOURCE.with({
  failure_reason: attribute.nullable<string>(),
  /** dedicated: `reserved` while the deploy holds the name but the platform has not answered yet. */
  deploy_state: attribute.nullable<'reserved' | 'started'>(),
  endpoint_arn: attribute.nullable<string>(),
  model_package_arn: attribute.nullable<string>(),
  model_data_url: attribute.nullable<string>(),
  execution_role_arn: attribute.nullable<string>(),
  operation: attribute.nullable<PendingOperation>(),
  /** Set when the platform no longer knows the endpoint although no delete was requested here. */
  vanished_at: attribute.nullable<string>(),
  /** When the latest chat turn counted for the resource was answered (ISO), or null before the first; set by the chat aggregator, read only here. */
  last_chat_at: attribute.nullable<string>(),

  // Guardrails (dedicated): what an admin set, and what the reconciler and every state change keep.
  /** An endpoint without invocations for this long is stopped (OutOfService). */
  idle_timeout_minutes: attribute.nullable<number>(),
  /** When the month's cost reaches this, the endpoint is stopped. */
  monthly_budget_usd: attribute.nullable<number>(),
  /** Billing (lib/resources/billing.ts): the month, its closed instance-seconds (below), the open segment. */
  billing_month: attribute.nullable<string>(),
  billable_since: attribute.nullable<string>(),
  /** Set while a guardrail holds the endpoint OutOfService (platform endpoint deleted). */
  stopped: attribute.nullable<GuardrailStop>(),
  /**
   * The endpoint's configuration, as last seen on the platform (and kept by a guardrail's stop): what
   * start creates a stopped or vanished endpoint again from.
   */
  endpoint_config_name: attribute.nullable<string>(),
  /** When the endpoint was last created, started or restarted: an idle clock starts no earlier. */
  active_since: attribute.nullable<string>(),
  /** The reconciler need not ask for invocations before this (the last activity it saw + the timeout). */
  idle_check_after: attribute.nullable<string>(),
  /** The platform's LastModifiedTime last stored: the reconciler describes only what changed since. */
  platform_modified_at: attribute.nullable<string>(),
  /** Production variants (adopted endpoints may have others than AllTraffic); null means AllTraffic. */
  variant_names: attribute.nullable<string[]>(),
  /** The client's id of the deploy that created it: a repeat with the same token gets the same answer. */
  client_token: attribute.nullable<string>(),
  /** Kept by the stream aggregator from the chat turns: mean latency = total / count. */
  chat_count: attribute.number(),
  chat_latency_ms_total: attribute.number(),
  billed_instance_seconds: attribute.number(),
});

export type TrackedResource = RecordOf<typeof TRACKED_RESOURCE>;

/** Why a guardrail took the endpoint OutOfService. */
export interface GuardrailStop {
  reason: 'idle' | 'budget';
  at: string;
  /** In words, for people: the timeout or budget and what was seen. */
  detail: string;
}

export const resourceKey = (id: string) => ({ PK: `RES#${id}`, SK: 'META' });
const ALL_PARTITION = 'RESOURCES';
const typePartition = (type: PlatformName) => `RESTYPE#${type}`;

export const resourceFromItem = (item: Record<string, unknown>): Resource => RESOURCE.read(item);
const trackedFromItem = (item: Record<string, unknown>): TrackedResource => TRACKED_RESOURCE.read(item);

export type PublicResource = RecordOf<typeof PUBLIC_RESOURCE>;

/** The docs/openapi.yaml Resource fields only (not the chat target, the creator or any bookkeeping). */
export const publicResource = (resource: Resource): PublicResource => PUBLIC_RESOURCE.read(resource);

export async function getResource(id: string): Promise<Resource | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: resourceKey(id) }));
  return Item ? resourceFromItem(Item) : undefined;
}

export async function getTrackedResource(id: string): Promise<TrackedResource | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: resourceKey(id), ConsistentRead: true }));
  return Item ? trackedFromItem(Item) : undefined;
}

/** The NameTaken error of an endpoint name. */
export const endpointNameTaken = (type: PlatformName, endpointName: string) =>
  new DataError('NameTaken', `An endpoint named "${endpointName}" already exists on the ${type} platform`);

/**
 * Writes a new resource and takes its name in one transaction: a NameTaken error when the name is held,
 * whoever else is writing at the same moment.
 */
export async function insertResource(resource: TrackedResource): Promise<void> {
  const { chat_count: _count, chat_latency_ms_total: _total, last_chat_at: _chat, ...all } = resource;
  const fields = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null));
  const items: TransactItems = [
    {
      Put: {
        TableName: TABLE,
        Item: {
          ...resourceKey(resource.id),
          GSI1PK: ALL_PARTITION,
          GSI1SK: `${resource.created_at}#${resource.id}`,
          GSI2PK: typePartition(resource.type),
          GSI2SK: `${resource.created_at}#${resource.id}`,
          entity: 'resource',
          ...fields,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: TABLE,
        Item: { ...nameGuardKey(resource.type, resource.name), resourceId: resource.id, created_at: resource.created_at },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  try {
    await transactWrite(items);
  } catch (err) {
    if (cancellationReasons(err)?.[1] === 'ConditionalCheckFailed') throw endpointNameTaken(resource.type, resource.name);
    throw err;
  }
}

/** The id of the resource holding a name, if any. */
export async function getNameHolder(type: PlatformName, name: string): Promise<string | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: nameGuardKey(type, name), ConsistentRead: true }));
  return Item?.resourceId as string | undefined;
}

/** Frees a guard whose resource no longer exists (a crash between the two would be the only cause). */
export async function releaseOrphanName(type: PlatformName, name: string, resourceId: string): Promise<void> {
  await db
    .send(
      new DeleteCommand({
        TableName: TABLE,
        Key: nameGuardKey(type, name),
        ConditionExpression: 'resourceId = :id',
        ExpressionAttributeValues: { ':id': resourceId },
      }),
    )
    .catch((err: { name?: string }) => {
      if (err?.name !== 'ConditionalCheckFailedException') throw err;
    });
}

/**
 * Removes a resource and frees its name in one transaction. false when the resource was already gone
 * (another request removed it first).
 */
export async function removeResource(resource: Pick<Resource, 'id' | 'type' | 'name'>): Promise<boolean> {
  const items: TransactItems = [
    { Delete: { TableName: TABLE, Key: resourceKey(resource.id), ConditionExpression: 'attribute_exists(PK)' } },
    {
      Delete: {
        TableName: TABLE,
        Key: nameGuardKey(resource.type, resource.name),
        // The guard may point at another resource only if this one never held it; never free that one.
        ConditionExpression: 'attribute_not_exists(PK) OR resourceId = :id',
        ExpressionAttributeValues: { ':id': resource.id },
      },
    },
  ];
  try {
    await transactWrite(items);
    return true;
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (reasons?.[0] === 'ConditionalCheckFailed') return false;
    if (reasons?.[1] === 'ConditionalCheckFailed') {
      // The name belongs to someone else: remove only the resource.
      await db
        .send(new DeleteCommand({ TableName: TABLE, Key: resourceKey(resource.id), ConditionExpression: 'attribute_exists(PK)' }))
        .catch((e: { name?: string }) => {
          if (e?.name !== 'ConditionalCheckFailedException') throw e;
        });
      return true;
    }
    throw err;
  }
}

/** The billing fields (lib/resources/billing.ts), always written together. */
export type BillingFields = Pick<TrackedResource, 'billing_month' | 'billed_instance_seconds' | 'billable_since'>;

type ResourcePatch = Partial<
  Pick<
    TrackedResource,
    | 'status'
    | 'health'
    | 'failure_reason'
    | 'deploy_state'
    | 'endpoint_arn'
    | 'instance_type'
    | 'instance_count'
    | 'operation'
    | 'vanished_at'
    | 'last_updated'
    | 'idle_timeout_minutes'
    | 'monthly_budget_usd'
    | 'billing_month'
    | 'billed_instance_seconds'
    | 'billable_since'
    | 'stopped'
    | 'endpoint_config_name'
    | 'active_since'
    | 'idle_check_after'
    | 'platform_modified_at'
    | 'variant_names'
    | 'access'
  >
>;

interface PatchCondition {
  /** Only when the stored status is this one. */
  status?: ResourceStatus;
  /**
   * Only when no control operation is between its claim and the platform's answer, unless that claim
   * is older than this timestamp (its Lambda died).
   */
  noOperationRequestingSince?: string;
  /**
   * Only when the open billing segment is still the one read (null: none open). A write that moves
   * billing must not close a segment another write has already closed, or it would count it twice.
   */
  billableSince?: string | null;
  /** Only when the pending operation is in this phase. */
  operationPhase?: PendingOperation['phase'];
}

const isConditionFailure = (err: unknown) => (err as { name?: string })?.name === 'ConditionalCheckFailedException';

/**
 * Sets the given attributes (null removes one) when the resource exists and the condition holds.
 * Returns the item as written, or undefined when the condition failed or the resource is gone. The
 * named patterns below are what the rest of the service uses.
 */
async function patchResource(id: string, patch: ResourcePatch, condition: PatchCondition = {}): Promise<TrackedResource | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  Object.entries(patch).forEach(([field, value], i) => {
    if (value === undefined) return;
    names[`#f${i}`] = field;
    if (value === null) {
      removes.push(`#f${i}`);
    } else {
      values[`:v${i}`] = value;
      sets.push(`#f${i} = :v${i}`);
    }
  });
  const conditions = ['attribute_exists(PK)'];
  if (condition.status) {
    names['#status'] = 'status';
    values[':expected'] = condition.status;
    conditions.push('#status = :expected');
  }
  if (condition.noOperationRequestingSince) {
    names['#op'] = 'operation';
    values[':requesting'] = 'requesting';
    values[':stale'] = condition.noOperationRequestingSince;
    conditions.push('(attribute_not_exists(#op) OR #op.phase <> :requesting OR #op.#at < :stale)');
    names['#at'] = 'at';
  }
  if (condition.operationPhase) {
    names['#op'] = 'operation';
    names['#phase'] = 'phase';
    values[':phase'] = condition.operationPhase;
    conditions.push('#op.#phase = :phase');
  }
  if (condition.billableSince !== undefined) {
    names['#bs'] = 'billable_since';
    if (condition.billableSince === null) {
      // Items written before billing existed may carry an explicit NULL.
      values[':nullType'] = 'NULL';
      conditions.push('(attribute_not_exists(#bs) OR attribute_type(#bs, :nullType))');
    } else {
      values[':bs'] = condition.billableSince;
      conditions.push('#bs = :bs');
    }
  }
  const update = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' ');
  if (!update) return getTrackedResource(id);
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: resourceKey(id),
        UpdateExpression: update,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? trackedFromItem(Attributes) : undefined;
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/**
 * Claims a resource for a control operation: from the status read (`from`) to the operation's
 * transitional status, marked `requesting` until the platform has answered. Of concurrent claims on
 * one resource exactly one succeeds; a claim still `requesting` blocks others unless it is older than
 * `staleBefore` (its Lambda died). undefined when the claim lost (or the resource is gone).
 */
export function claimOperation(
  id: string,
  claim: {
    from: ResourceStatus;
    to: ResourceStatus;
    action: PendingOperation['action'];
    at: string;
    staleBefore: string;
    /** The billing fields after the move, and the open segment they were computed from. */
    billing?: { next: BillingFields; expectedSince: string | null };
    /** A guardrail's stop: why, and the configuration that start will recreate the endpoint from. */
    stopped?: GuardrailStop;
    endpointConfigName?: string;
  },
): Promise<TrackedResource | undefined> {
  return patchResource(
    id,
    {
      status: claim.to,
      health: 'unknown',
      operation: { action: claim.action, phase: 'requesting', at: claim.at, from: claim.from },
      last_updated: claim.at,
      ...claim.billing?.next,
      stopped: claim.stopped,
      endpoint_config_name: claim.endpointConfigName,
    },
    { status: claim.from, noOperationRequestingSince: claim.staleBefore, billableSince: claim.billing?.expectedSince },
  );
}

/**
 * What a confirmed operation changes beside its phase: a start clears the stop (or the mark of an
 * endpoint that vanished) and restarts the idle clock.
 */
export type ConfirmEffects = Partial<Pick<TrackedResource, 'stopped' | 'vanished_at' | 'failure_reason' | 'active_since' | 'idle_check_after'>>;

/** The platform accepted the claimed operation: from now on its word wins over the claim. */
export async function confirmOperationRequested(id: string, operation: Omit<PendingOperation, 'phase'>, effects: ConfirmEffects = {}): Promise<void> {
  await patchResource(id, { operation: { ...operation, phase: 'requested' }, ...effects });
}

/** The claimed operation is accepted but waits for the platform (a start behind a stop's deletion). */
export async function queueClaimedOperation(id: string, operation: Omit<PendingOperation, 'phase'>): Promise<void> {
  await patchResource(id, { operation: { ...operation, phase: 'queued' } }, { operationPhase: 'requesting' });
}

/**
 * Takes a queued operation to carry it out: queued becomes requesting (at `at`), so of concurrent
 * syncs exactly one asks the platform. undefined when another took it first (or it is gone).
 */
export function takeQueuedOperation(id: string, operation: PendingOperation, at: string): Promise<TrackedResource | undefined> {
  return patchResource(id, { operation: { ...operation, phase: 'requesting', at }, last_updated: at }, { operationPhase: 'queued' });
}

/**
 * The platform refused a claimed operation: the resource goes back to what it was before the claim
 * (status, health, billing, a guardrail's stop), unless something else has moved it since (then that
 * stands).
 */
export async function releaseClaim(
  before: Pick<TrackedResource, 'id' | 'status' | 'health' | 'stopped' | 'endpoint_config_name' | keyof BillingFields>,
  claimedStatus: ResourceStatus,
  at: string,
): Promise<void> {
  await patchResource(
    before.id,
    {
      status: before.status,
      health: before.health,
      operation: null,
      last_updated: at,
      stopped: before.stopped,
      endpoint_config_name: before.endpoint_config_name,
      billing_month: before.billing_month,
      billed_instance_seconds: before.billed_instance_seconds,
      billable_since: before.billable_since,
    },
    { status: claimedStatus },
  );
}

/** What the platform showed of an endpoint, to be stored (with the billing that follows from it). */
export type ObservedState = Partial<
  Pick<
    TrackedResource,
    | 'status'
    | 'health'
    | 'failure_reason'
    | 'instance_type'
    | 'instance_count'
    | 'vanished_at'
    | 'operation'
    | 'stopped'
    | 'platform_modified_at'
    | 'deploy_state'
    | 'endpoint_arn'
    | 'variant_names'
    | 'endpoint_config_name'
    | keyof BillingFields
  >
>;

/**
 * Stores what the platform showed, conditional on the status it was compared with, on no control
 * claim being in flight (a claim made meanwhile wins) and, when billing moves, on the open billing
 * segment it was computed from. undefined when the condition failed.
 */
export function recordObservedState(
  id: string,
  observed: ObservedState,
  guard: { expectedStatus: ResourceStatus; staleBefore: string; at: string; expectedBillableSince?: string | null },
): Promise<TrackedResource | undefined> {
  return patchResource(
    id,
    { ...observed, last_updated: guard.at },
    {
      status: guard.expectedStatus,
      noOperationRequestingSince: guard.staleBefore,
      billableSince: observed.billable_since !== undefined ? guard.expectedBillableSince : undefined,
    },
  );
}

/** The endpoint is gone from the platform although no delete was asked for here: kept, marked, no longer billed. */
export function markVanished(
  id: string,
  reason: string,
  at: string,
  billing?: { next: BillingFields; expectedSince: string | null },
): Promise<TrackedResource | undefined> {
  return patchResource(
    id,
    { status: 'OutOfService', health: 'unknown', failure_reason: reason, vanished_at: at, operation: null, last_updated: at, ...billing?.next },
    { billableSince: billing?.expectedSince },
  );
}

/**
 * A managed resource's inference profile is gone from Bedrock (a system profile no longer listed, an
 * application profile deleted outside the service): Failed, unhealthy, with the reason. Only from
 * InService, so of two noticing at once one writes (and audits) it. undefined when it was not InService.
 */
export function markProfileMissing(id: string, reason: string, at: string): Promise<TrackedResource | undefined> {
  return patchResource(
    id,
    { status: 'Failed', health: 'unhealthy', failure_reason: reason, vanished_at: at, last_updated: at },
    { status: 'InService' },
  );
}

/** The profile is listed again (a system profile back in the Region's listing): InService as before. */
export function markProfileBack(id: string, at: string): Promise<TrackedResource | undefined> {
  return patchResource(
    id,
    { status: 'InService', health: 'healthy', failure_reason: null, vanished_at: null, last_updated: at },
    { status: 'Failed' },
  );
}

/** The platform has the endpoint: the deploy's reservation becomes a started deploy. */
export async function markDeployStarted(
  id: string,
  endpointArn: string,
  observed?: Pick<TrackedResource, 'status' | 'health'> & Partial<Pick<TrackedResource, 'platform_modified_at'>>,
): Promise<void> {
  await patchResource(id, { deploy_state: 'started', endpoint_arn: endpointArn, ...observed });
}

/** An admin's guardrail settings: a number sets, null clears, undefined leaves as it is. */
export interface GuardrailSettings {
  idle_timeout_minutes?: number | null;
  monthly_budget_usd?: number | null;
}

/**
 * Sets a resource's guardrails. A new idle timeout forgets when the reconciler meant to look again
 * (that was computed from the old timeout). undefined when the resource is gone.
 */
export function setGuardrails(id: string, settings: GuardrailSettings, at: string): Promise<TrackedResource | undefined> {
  return patchResource(id, {
    ...settings,
    ...(settings.idle_timeout_minutes !== undefined ? { idle_check_after: null } : {}),
    last_updated: at,
  });
}

/** Who may call the resource (PUT /api/resources/{id}/access). undefined when the resource is gone. */
export function setResourceAccess(id: string, access: ResourceAccess): Promise<TrackedResource | undefined> {
  return patchResource(id, { access });
}

/** The reconciler saw invocations: it need not look again before `after`. */
export async function recordIdleCheck(id: string, after: string): Promise<void> {
  await patchResource(id, { idle_check_after: after });
}

/**
 * Which of these endpoint names are held by a tracked resource of the platform (lower-cased): one
 * BatchGet of the name guards, eventually consistent (the reconciler looks again next pass).
 */
export async function heldNames(type: PlatformName, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const found = await getItems(
    names.map((n) => nameGuardKey(type, n)),
    false,
  );
  // A route's guard (routeId, no resourceId) holds the name for the route, not for an endpoint.
  return new Set(names.filter((n) => found(nameGuardKey(type, n))?.resourceId).map((n) => n.toLowerCase()));
}

export interface ResourceFilter {
  type?: PlatformName;
  status?: ResourceStatus;
  limit: number;
  cursor?: string;
}

/** How many index pages one list call reads at most while a status filter skips items. */
const MAX_PAGES = 10;

/**
 * Resources newest first: all of them on GSI1, one platform's on GSI2. A status filter is applied to
 * the index query (no Scan); pages are read on until the limit is filled, and the cursor then points
 * just after the last resource returned.
 */
export async function listResources(filter: ResourceFilter): Promise<{ resources: TrackedResource[]; nextCursor: string | null }> {
  const index = filter.type ? GSI2 : GSI1;
  const pkName = filter.type ? 'GSI2PK' : 'GSI1PK';
  const skName = filter.type ? 'GSI2SK' : 'GSI1SK';
  const partition = filter.type ? typePartition(filter.type) : ALL_PARTITION;
  let startKey = decodeCursor(filter.cursor, ['PK', 'SK', pkName, skName], { [pkName]: partition });

  const found: Record<string, unknown>[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const { Items = [], LastEvaluatedKey } = await db.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: index,
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: filter.status ? '#status = :status' : undefined,
        ExpressionAttributeNames: { '#pk': pkName, ...(filter.status ? { '#status': 'status' } : {}) },
        ExpressionAttributeValues: { ':pk': partition, ...(filter.status ? { ':status': filter.status } : {}) },
        ScanIndexForward: false,
        Limit: filter.limit - found.length + (filter.status ? filter.limit : 0),
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...Items);
    if (found.length >= filter.limit) {
      const page = found.slice(0, filter.limit);
      const last = page.at(-1) as Record<string, unknown>;
      const more = found.length > filter.limit || LastEvaluatedKey !== undefined;
      const cursorKey = { PK: last.PK, SK: last.SK, [pkName]: last[pkName], [skName]: last[skName] };
      return { resources: page.map(trackedFromItem), nextCursor: more ? encodeCursor(cursorKey) : null };
    }
    if (!LastEvaluatedKey) return { resources: found.map(trackedFromItem), nextCursor: null };
    startKey = LastEvaluatedKey;
  }
  return { resources: found.map(trackedFromItem), nextCursor: encodeCursor(startKey) };
}

/**
 * Adds a batch of chat turns to the resource's chat counters (the status endpoint reports their mean
 * latency) and, with `moveLastChat`, moves `last_chat_at` forward to the batch's latest turn (idle
 * detection). Conditional on the resource still existing, so a resource removed meanwhile is not brought
 * back as a stub item, and with `moveLastChat` on `last_chat_at` being older, so a batch folded late
 * never moves it back: a caller whose update fails retries without `moveLastChat`, then drops it.
 */
export function resourceChatCountersWrite(
  resourceId: string,
  counters: { count: number; latencyMsTotal: number; lastChatAt: string },
  moveLastChat: boolean,
): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: resourceKey(resourceId),
      UpdateExpression: `ADD chat_count :n, chat_latency_ms_total :lat${moveLastChat ? ' SET last_chat_at = :at' : ''}`,
      ConditionExpression: moveLastChat
        ? 'attribute_exists(PK) AND (attribute_not_exists(last_chat_at) OR last_chat_at < :at)'
        : 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':n': counters.count, ':lat': counters.latencyMsTotal, ...(moveLastChat ? { ':at': counters.lastChatAt } : {}) },
    },
  };
}
