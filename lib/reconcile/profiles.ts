import { config } from '../../core/config';
import { announce } from '../alerts/events';
import { recordSystemAction } from '../audit/system';
import { listApplicationProfiles, listSystemProfiles, profileTags, type ListedApplicationProfile } from '../platforms/managed/profiles';
import { ownership } from '../platforms/tags';
import { noticeProfileBack, noticeProfileMissing } from '../resources/profile-health';
import { allOrphans, recordOrphan, removeOrphan } from '../../tables/orphans';
import { getTrackedResource, listResources, type TrackedResource } from '../../tables/resources';
import type { Pacer } from './pacer';

/**
 * Step 6 of a pass: the managed platform's inference profiles. Two listings (ListInferenceProfiles,
 * system-defined and application, every page) and one Query page of managed resources a time,
 * whatever the number of resources:
 *
 *   - a resource whose profile is no longer listed is marked Failed with the reason and audited
 *     (lib/resources/profile-health.ts); one whose system profile is listed again is InService again;
 *   - an application profile with this service's and stage's tags that no resource records is an
 *     orphan: recorded with its tags (ListTagsForResource, asked once per profile) and audited
 *     (`orphan.found`), for an admin to delete. A profile younger than a deploy's run is left for the
 *     next pass: the deploy creates the profile before it registers the resource.
 */

/** A deploy creates the profile, then registers its resource, well within this. */
const DEPLOY_GRACE_MS = 120_000;
const MAX_RESOURCE_PAGES = 20;
/** Profiles found not to be ours, by ARN: not asked about again in this container. */
const foreign = new Set<string>();

export interface ProfileReport {
  profilesMissing: string[];
  profilesBack: string[];
  orphansFound: string[];
  orphansDropped: string[];
  errors: string[];
}

async function managedWithProfiles(): Promise<{ resources: TrackedResource[]; complete: boolean }> {
  const resources: TrackedResource[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_RESOURCE_PAGES; page++) {
    const out = await listResources({ type: 'managed', limit: 100, cursor });
    resources.push(...out.resources.filter((r) => r.inference_profile));
    if (!out.nextCursor) return { resources, complete: true };
    cursor = out.nextCursor;
  }
  return { resources, complete: false };
}

export async function watchProfiles(pacer: Pacer, now: Date, report: ProfileReport): Promise<void> {
  const [system, application, tracked] = await Promise.all([
    pacer.call('ListInferenceProfiles', () => listSystemProfiles()),
    pacer.call('ListInferenceProfiles', () => listApplicationProfiles()),
    managedWithProfiles(),
  ]);
  const listed = new Set([...system.map((p) => p.id), ...application.map((p) => p.arn)]);
  for (const r of tracked.resources) {
    const profile = r.inference_profile as NonNullable<TrackedResource['inference_profile']>;
    const present = listed.has(profile.type === 'APPLICATION' ? profile.arn : profile.id);
    if (!present && r.status === 'InService' && (await noticeProfileMissing(r, 'reconciler', now))) report.profilesMissing.push(r.id);
    if (present && r.status === 'Failed' && r.vanished_at && (await noticeProfileBack(r, 'reconciler', now))) report.profilesBack.push(r.id);
  }
  // Without every resource read, an untracked-looking profile may be recorded by an unread one.
  if (tracked.complete) await findProfileOrphans(application, new Set(tracked.resources.map((r) => r.inference_profile?.arn)), pacer, now, report);
}

async function findProfileOrphans(
  profiles: ListedApplicationProfile[],
  recordedArns: Set<string | undefined>,
  pacer: Pacer,
  now: Date,
  report: ProfileReport,
): Promise<void> {
  const recorded = (await allOrphans()).filter((o) => o.kind === 'inference_profile');
  const byArn = new Map(profiles.map((p) => [p.arn, p]));
  for (const o of recorded) {
    if (!byArn.has(o.endpoint_arn) || recordedArns.has(o.endpoint_arn)) {
      if (await removeOrphan(o.endpoint_name)) report.orphansDropped.push(o.endpoint_name);
    }
  }
  const known = new Set(recorded.map((o) => o.endpoint_arn));
  for (const p of profiles) {
    const young = p.createdAt !== null && now.getTime() - Date.parse(p.createdAt) < DEPLOY_GRACE_MS;
    if (recordedArns.has(p.arn) || known.has(p.arn) || foreign.has(p.arn) || young) continue;
    try {
      const tags = await pacer.call('ListTagsForResource', () => profileTags(p.arn));
      if (!tags) continue;
      const owner = ownership(tags);
      if (!owner.ours) {
        if (foreign.size > 10_000) foreign.clear();
        foreign.add(p.arn);
        continue;
      }
      // The resource its tags name may record it although the listing above missed it (written meanwhile).
      if (owner.resourceId && (await getTrackedResource(owner.resourceId))?.inference_profile?.arn === p.arn) continue;
      const found = await recordOrphan({
        kind: 'inference_profile',
        endpoint_name: p.name,
        endpoint_arn: p.arn,
        status: 'ACTIVE',
        platform_created_at: p.createdAt ?? now.toISOString(),
        found_at: now.toISOString(),
        resource_id: owner.resourceId ?? null,
        endpoint_config_name: null,
        instance_type: null,
        instance_count: null,
        variant_names: [],
        tags,
      });
      if (!found) continue;
      report.orphansFound.push(p.name);
      // The alert channels hear of it as of an orphan endpoint (delivered from the table's stream).
      await announce(
        {
          event: 'orphan.found',
          kind: 'inference_profile',
          endpoint_name: p.name,
          endpoint_arn: p.arn,
          resource_id: owner.resourceId ?? null,
          tags,
        },
        now,
      );
      await recordSystemAction(
        {
          actor: 'reconciler',
          action: 'orphan.found',
          target: p.name,
          reason: `Application inference profile "${p.name}" (${p.arn}, model ${p.modelId}) carries this service's tags (stage ${config.stage}${owner.resourceId ? `, resource ${owner.resourceId}` : ''}) but no tracked resource records it: delete it (GET /api/admin/orphans)`,
          metric: { name: 'OrphansFound', dimensions: { platform: 'managed' } },
        },
        now,
      );
    } catch (err) {
      report.errors.push(`${p.name}: ${(err as Error).message}`);
    }
  }
}
