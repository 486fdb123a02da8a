import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { nanosOf } from '../../core/money';
import { logger } from '../../core/observability';
import { announce } from '../alerts/events';
import { claimReachedThresholds } from '../alerts/thresholds';
import { recordSystemAction } from '../audit/system';
import { mapLimit } from '../concurrency';
import { endpointMetricsOf, endpointsOf } from '../platforms/endpoints';
import { ownership } from '../platforms/tags';
import { VARIANT_NAME, type DedicatedMetrics, type EndpointDescription, type EndpointSummary } from '../platforms/types';
import { usd as money } from '../pricing/money';
import { isBillable, monthToDate } from '../resources/billing';
import { instancePriceOf } from '../resources/costs';
import { budgetReached, idleStopNotBefore } from '../resources/guardrails';
import { specStatus } from '../resources/lifecycle';
import { claimInFlight, syncDedicated } from '../resources/sync';
import { allOrphans, recordOrphan, removeOrphan, updateOrphanStatus, type Orphan } from '../../tables/orphans';
import { acquireReconcilerLease, finishReconcilerPass, type ReconcilerPassSummary } from '../../tables/reconciler';
import { monthOf } from '../../tables/budgets';
import { heldNames, listResources, recordIdleCheck, type TrackedResource } from '../../tables/resources';
import { Pacer } from './pacer';
import { watchProfiles } from './profiles';
import { stopForGuardrail } from './stop';

/** The platform the pass watches: the one that runs endpoints (its traits' lifecycle). */
const PLATFORM = 'dedicated';

/**
 * One reconciliation pass (the scheduled function functions/reconciler/reconcile.ts; an interval under
 * `npm start`). What it does, and what it costs:
 *
 *   1. the platform side: ListEndpoints, every page (100 endpoints a call);
 *   2. the tracked side: one page of dedicated resources from GSI2 (RESTYPE#dedicated), going on from
 *      where the last pass stopped, so every resource is seen once per cycle however many there are;
 *   3. each resource whose listing differs from what is stored (status, LastModifiedTime), or that
 *      the listing lacks, is described and synced (lib/resources/sync.ts): Creating/Updating to
 *      InService or Failed with the platform's reason, deleted or changed outside the service;
 *      a resource whose listing matches costs no platform call at all;
 *   4. guardrails: each alert threshold an endpoint's month to date has reached is claimed (once per
 *      endpoint and month, lib/alerts/thresholds.ts); an InService endpoint whose month's cost
 *      reached its budget, or that had no invocation (CloudWatch, batched: up to 500 endpoints a
 *      GetMetricData) and no chat for its idle timeout, is stopped (./stop.ts). One that had traffic
 *      is not asked about again until its timeout could have run out since (idle_check_after);
 *   5. orphans: listed endpoints that no tracked resource holds (a BatchGet of name guards), whose
 *      tags say this service and stage (ListTags, cached per container for endpoints that are not
 *      ours), are recorded for admins; records of orphans gone from the platform are dropped;
 *   6. inference profiles (./profiles.ts): managed resources whose profile vanished are marked Failed,
 *      and application profiles with this stage's tags that no resource records are orphans too.
 *
 * Every platform call is paced (RECONCILE_PLATFORM_CALLS_PER_SECOND) and counted; every change and
 * stop is an audit entry with its reason and a metric. Only one pass runs at a time (a lease item).
 */

export interface PassOptions {
  now?: Date;
  /** Epoch ms after which the pass starts nothing new (the Lambda's remaining time, less a margin). */
  deadline?: number;
}

export interface PassReport {
  startedAt: string;
  durationMs: number;
  /** Set when the pass did not run (another pass holds the lease). */
  skipped?: string;
  examined: number;
  platformEndpoints: number;
  /** The platform listing was read to its end (orphan records are only dropped then). */
  listingComplete: boolean;
  cycleComplete: boolean;
  changes: number;
  stops: { resourceId: string; endpointName: string; reason: 'idle' | 'budget' }[];
  /** Budget alert thresholds claimed in this pass (their events go out through the stream). */
  budgetAlerts: number;
  idleChecked: number;
  /** Endpoints, and application inference profiles, found left behind. */
  orphansFound: string[];
  orphansDropped: string[];
  /** Managed resources whose inference profile is no longer listed (marked Failed), and those whose profile came back. */
  profilesMissing: string[];
  profilesBack: string[];
  /** Untracked endpoints left for a later pass (RECONCILE_MAX_TAG_CHECKS reached). */
  deferredTagChecks: number;
  platformCalls: Record<string, number>;
  errors: string[];
}

const LEASE_MS = 5 * 60_000;
const MAX_LIST_PAGES = 50;
const CONCURRENCY = 4;
/** Endpoints found not to be ours (by ARN and creation time) are not asked about again in this container. */
const foreign = new Set<string>();
/** Names found held by a tracked resource, and until when that is trusted (they rarely change hands). */
const held = new Map<string, number>();
const HELD_TRUST_MS = 10 * 60_000;

const lower = (s: string) => s.toLowerCase();
const plusMinutes = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
async function listPlatform(pacer: Pacer): Promise<{ byName: Map<string, EndpointSummary>; complete: boolean }> {
  const byName = new Map<string, EndpointSummary>();
  let token: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const out = await pacer.call('ListEndpoints', () => endpointsOf(PLATFORM).listEndpoints(token));
    for (const e of out.endpoints) byName.set(lower(e.name), e);
    token = out.nextToken;
    if (!token) return { byName, complete: true };
  }
  return { byName, complete: false };
}

/** Whether what the listing says differs from what is stored, so the endpoint must be described. */
function needsDescribe(r: TrackedResource, listed: EndpointSummary | undefined): boolean {
  if (!listed) {
    // A stopped endpoint is meant to be gone and a vanished one is known to be, unless an operation
    // has bookkeeping to finish (a stop's, a start queued behind the stop's deletion, a dead claim).
    if (r.stopped || r.vanished_at) return Boolean(r.operation);
    return true;
  }
  if (r.stopped) return listed.status !== 'Deleting';
  return (
    specStatus(listed.status) !== r.status ||
    listed.lastModifiedAt !== r.platform_modified_at ||
    r.deploy_state === 'reserved' ||
    isBillable(r.status) !== Boolean(r.billable_since) ||
    // Tracked before the configuration was kept: described once to learn it (start needs it if the
    // endpoint is ever deleted behind the service's back).
    !r.endpoint_config_name
  );
}

interface Examined {
  resource: TrackedResource;
  description?: EndpointDescription;
}

export async function reconcile(options: PassOptions = {}): Promise<PassReport> {
  const now = options.now ?? new Date();
  const started = Date.now();
  const deadline = options.deadline ?? started + 60_000;
  const report: PassReport = {
    startedAt: now.toISOString(),
    durationMs: 0,
    examined: 0,
    platformEndpoints: 0,
    listingComplete: false,
    cycleComplete: false,
    changes: 0,
    stops: [],
    budgetAlerts: 0,
    idleChecked: 0,
    orphansFound: [],
    orphansDropped: [],
    profilesMissing: [],
    profilesBack: [],
    deferredTagChecks: 0,
    platformCalls: {},
    errors: [],
  };
  const owner = randomUUID();
  const lease = await acquireReconcilerLease(owner, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString());
  if (!lease) return { ...report, skipped: 'Another reconciliation pass holds the lease', durationMs: Date.now() - started };

  const pacer = new Pacer(config.reconciler.platformCallsPerSecond);
  let cursor = lease.cursor;
  try {
    const platform = await listPlatform(pacer);
    report.platformEndpoints = platform.byName.size;
    report.listingComplete = platform.complete;

    let page = await listResources({ type: PLATFORM, limit: config.reconciler.maxResourcesPerPass, cursor: lease.cursor ?? undefined });
    // The last page ended exactly at the end of the list: this pass starts the next cycle at once.
    if (page.resources.length === 0 && lease.cursor) {
      page = await listResources({ type: PLATFORM, limit: config.reconciler.maxResourcesPerPass });
    }
    const examined = await examineAll(page.resources, platform.byName, pacer, now, deadline, report);
    if (examined.length === page.resources.length) {
      cursor = page.nextCursor;
      report.cycleComplete = page.nextCursor === null;
    }
    await alertBudgets(examined, now, report);
    await applyGuardrails(examined, pacer, now, deadline, report);
    if (Date.now() < deadline) await findOrphans(page.resources, platform, pacer, now, report);
    // A Bedrock failure here leaves the endpoints' work done and is reported, as a failed ListTags is.
    if (Date.now() < deadline)
      await watchProfiles(pacer, now, report).catch((err: Error) => report.errors.push(`Inference profiles: ${err.message}`));
  } catch (err) {
    report.errors.push((err as Error).message);
    logger.error({ message: 'reconciliation pass failed', error: err as Error });
    throw err;
  } finally {
    report.platformCalls = { ...pacer.calls };
    report.durationMs = Date.now() - started;
    await finishReconcilerPass(owner, cursor, summaryOf(report)).catch((err: Error) =>
      logger.warn({ message: 'reconciler state write failed', error: err.message }),
    );
  }
  logger.info({ message: 'reconciliation pass', ...report });
  return report;
}

function summaryOf(report: PassReport): ReconcilerPassSummary {
  return {
    at: report.startedAt,
    duration_ms: report.durationMs,
    examined: report.examined,
    platform_endpoints: report.platformEndpoints,
    changes: report.changes + report.profilesMissing.length + report.profilesBack.length,
    stops: report.stops.length,
    orphans_found: report.orphansFound.length,
    platform_calls: report.platformCalls,
    cycle_complete: report.cycleComplete,
    errors: report.errors.length,
  };
}

/** Steps 2-3: brings each resource of the page up to date where the listing says it changed. */
async function examineAll(
  resources: TrackedResource[],
  listing: Map<string, EndpointSummary>,
  pacer: Pacer,
  now: Date,
  deadline: number,
  report: PassReport,
): Promise<Examined[]> {
  const done: (Examined | undefined)[] = await mapLimit(resources, CONCURRENCY, async (r) => {
    if (Date.now() >= deadline) return undefined;
    report.examined++;
    if (claimInFlight(r, now) || !needsDescribe(r, listing.get(lower(r.endpoint_name)))) return { resource: r };
    try {
      const synced = await pacer.call('DescribeEndpoint', () => syncDedicated(r, now, { actor: 'reconciler', record: 'all' }));
      report.changes += synced.changes.length;
      return synced.kind === 'present' ? { resource: synced.resource, description: synced.description } : { resource: synced.resource };
    } catch (err) {
      report.errors.push(`${r.endpoint_name}: ${(err as Error).message}`);
      return { resource: r };
    }
  });
  // Everything up to the first resource the deadline cut off counts as examined.
  const cut = done.findIndex((d) => d === undefined);
  return (cut < 0 ? done : done.slice(0, cut)) as Examined[];
}

/**
 * Step 4, alerts: an endpoint's cost accrues with time, not with writes, so no stream shows it rising;
 * the pass compares each budget's month to date with its thresholds instead. The claims make a second
 * pass (or a stopped endpoint seen again) fire nothing twice. A failure here is reported, and stops
 * nothing: the guardrails still run.
 */
async function alertBudgets(examined: Examined[], now: Date, report: PassReport): Promise<void> {
  try {
    const budgeted = examined.map((e) => e.resource).filter((r) => r.monthly_budget_usd !== null);
    const states = await Promise.all(
      budgeted.map(async (r) => ({
        owner: { kind: 'endpoint', id: r.id } as const,
        name: r.name,
        month: monthOf(now),
        budget: nanosOf(r.monthly_budget_usd ?? 0),
        spent: nanosOf(monthToDate(r, await instancePriceOf(r), now).usd),
        refusedAt: null,
      })),
    );
    report.budgetAlerts = await claimReachedThresholds(states, now);
  } catch (err) {
    report.errors.push(`budget alerts: ${(err as Error).message}`);
  }
}

/** Step 4: budget first (it needs no platform call), then idleness (one CloudWatch batch per timeout). */
async function applyGuardrails(examined: Examined[], pacer: Pacer, now: Date, deadline: number, report: PassReport): Promise<void> {
  const idle = new Map<number, Examined[]>();
  for (const e of examined) {
    const r = e.resource;
    if (r.status !== 'InService' || r.stopped || r.operation || r.vanished_at) continue;
    if (r.monthly_budget_usd !== null) {
      const price = await instancePriceOf(r);
      if (budgetReached(r, price, now)) {
        const spent = monthToDate(r, price, now).usd;
        const detail = `This month's cost ${money(spent)} reached the monthly budget of ${money(r.monthly_budget_usd)}: the endpoint was deleted, its model and configuration kept; start brings it back once the budget is raised or cleared`;
        if (await stopForGuardrail(r, { reason: 'budget', detail }, e.description, pacer, now)) {
          report.stops.push({ resourceId: r.id, endpointName: r.endpoint_name, reason: 'budget' });
        }
        continue;
      }
    }
    const notBefore = idleStopNotBefore(r);
    if (r.idle_timeout_minutes && notBefore && notBefore <= now.toISOString()) {
      idle.set(r.idle_timeout_minutes, [...(idle.get(r.idle_timeout_minutes) ?? []), e]);
    }
  }

  for (const [minutes, group] of idle) {
    if (Date.now() >= deadline) return;
    const targets = group.map((e) => ({
      key: e.resource.id,
      endpointName: e.resource.endpoint_name,
      variantNames: e.resource.variant_names ?? (e.description?.variantNames.length ? e.description.variantNames : [VARIANT_NAME]),
    }));
    let seen: Awaited<ReturnType<DedicatedMetrics['invocations']>>;
    try {
      seen = await pacer.call('GetMetricData', () => endpointMetricsOf(PLATFORM).invocations(targets, minutes, now));
      pacer.add('GetMetricData', seen.calls - 1);
    } catch (err) {
      // Without the platform's figures nothing is stopped: an idle stop on missing data could stop a busy endpoint.
      report.errors.push(`CloudWatch: ${(err as Error).message}`);
      continue;
    }
    report.idleChecked += group.length;
    for (const e of group) {
      const r = e.resource;
      const activity = seen.counts.get(r.id);
      if (activity && activity.count > 0) {
        // Busy: no need to ask again before its timeout could have run out since the last activity.
        await recordIdleCheck(r.id, plusMinutes(activity.lastActiveAt ?? now.toISOString(), minutes));
        continue;
      }
      const detail = `No invocation for ${minutes} minutes (CloudWatch AWS/SageMaker Invocations, which counts every caller) and no chat through this service: the endpoint was deleted, its model and configuration kept; start brings it back`;
      if (await stopForGuardrail(r, { reason: 'idle', detail }, e.description, pacer, now)) {
        report.stops.push({ resourceId: r.id, endpointName: r.endpoint_name, reason: 'idle' });
      }
    }
  }
}

/** Step 5: tagged endpoints no tracked resource holds. */
async function findOrphans(
  page: TrackedResource[],
  platform: { byName: Map<string, EndpointSummary>; complete: boolean },
  pacer: Pacer,
  now: Date,
  report: PassReport,
): Promise<void> {
  const tracked = new Set(page.map((r) => lower(r.endpoint_name)));
  const recorded = new Map((await allOrphans()).filter((o) => o.kind !== 'inference_profile').map((o) => [lower(o.endpoint_name), o]));
  const at = now.getTime();
  const candidates = [...platform.byName.values()].filter(
    (e) => !tracked.has(lower(e.name)) && !foreign.has(`${e.arn}@${e.createdAt}`) && !((held.get(lower(e.name)) ?? 0) > at),
  );
  const holders = await heldNames(
    PLATFORM,
    candidates.map((e) => e.name),
  );
  for (const name of holders) held.set(name, at + HELD_TRUST_MS);

  // Records of orphans that were adopted meanwhile, or are gone from the platform, are dropped.
  for (const [name, o] of recorded) {
    const gone = platform.complete && !platform.byName.has(name);
    if (gone || tracked.has(name) || holders.has(name) || (held.get(name) ?? 0) > at) {
      if (await removeOrphan(o.endpoint_name)) report.orphansDropped.push(o.endpoint_name);
      recorded.delete(name);
    }
  }

  let tagChecks = 0;
  for (const e of candidates) {
    const name = lower(e.name);
    if (holders.has(name)) continue;
    const known = recorded.get(name);
    if (known && known.endpoint_arn === e.arn) {
      if (known.status !== e.status) await updateOrphanStatus(e.name, e.status);
      continue;
    }
    if (tagChecks >= config.reconciler.maxTagChecksPerPass) {
      report.deferredTagChecks++;
      continue;
    }
    tagChecks++;
    try {
      const tags = await pacer.call('ListTags', () => endpointsOf(PLATFORM).tagsOf(e.arn));
      if (!tags) continue;
      const owner = ownership(tags);
      if (!owner.ours) {
        if (foreign.size > 10_000) foreign.clear();
        foreign.add(`${e.arn}@${e.createdAt}`);
        continue;
      }
      const d = await pacer.call('DescribeEndpoint', () => endpointsOf(PLATFORM).describe(e.name));
      if (!d) continue;
      const orphan: Orphan = {
        endpoint_name: e.name,
        endpoint_arn: e.arn,
        status: e.status,
        platform_created_at: e.createdAt,
        found_at: now.toISOString(),
        resource_id: owner.resourceId ?? null,
        endpoint_config_name: d.configName || null,
        instance_type: d.instanceType ?? null,
        instance_count: d.instanceCount ?? null,
        variant_names: d.variantNames,
      };
      if (await recordOrphan(orphan)) {
        report.orphansFound.push(e.name);
        await recordSystemAction({
          actor: 'reconciler',
          action: 'orphan.found',
          target: e.name,
          reason: `Endpoint "${e.name}" (${e.status}) carries this service's tags (stage ${config.stage}${owner.resourceId ? `, resource ${owner.resourceId}` : ''}) but no tracked resource holds it: adopt or delete it (GET /api/admin/orphans)`,
          metric: { name: 'OrphansFound', dimensions: { platform: PLATFORM } },
        });
        await announce(
          {
            event: 'orphan.found',
            kind: 'endpoint',
            endpoint_name: e.name,
            endpoint_arn: e.arn,
            status: e.status,
            resource_id: owner.resourceId ?? null,
          },
          now,
        );
      }
    } catch (err) {
      report.errors.push(`${e.name}: ${(err as Error).message}`);
    }
  }
}
