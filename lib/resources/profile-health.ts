import { recordSystemAction, type SystemActor } from '../audit/system';
import { profileMissingReason } from '../calls/profile-failure';
import { markProfileBack, markProfileMissing, type Resource, type TrackedResource } from '../../tables/resources';

/**
 * A managed resource reaches its model through an inference profile (lib/deploy/inference-profile.ts),
 * and that profile can disappear under it: AWS stops listing a system-defined profile in the Region,
 * or someone deletes the application profile outside this service. Bedrock then refuses every call
 * with a bare "The provided model identifier is invalid". The reconciler's pass marks the resource
 * Failed and unhealthy with the reason, once (the write is conditional on InService), and records it
 * as a system event; calls are then refused before the platform is asked, naming the profile (a call
 * Bedrock refuses before the pass is answered the same way: lib/calls/profile-failure.ts). A system
 * profile listed again brings the resource back to InService.
 */

/** Marks the resource Failed for its missing profile and records it; undefined when it was not InService (someone else noticed first). */
export async function noticeProfileMissing(
  resource: Pick<Resource, 'id' | 'name' | 'inference_profile'>,
  actor: SystemActor,
  now = new Date(),
): Promise<TrackedResource | undefined> {
  const profile = resource.inference_profile;
  if (!profile) return undefined;
  const reason = profileMissingReason(profile);
  const marked = await markProfileMissing(resource.id, reason, now.toISOString());
  if (marked) {
    await recordSystemAction(
      {
        actor,
        action: 'resource.failed',
        target: resource.id,
        reason: `Resource "${resource.name}": ${reason}`,
        metric: { name: 'ReconciliationChanges', dimensions: { change: 'profile_missing' } },
      },
      now,
    );
  }
  return marked;
}

/** The profile is listed again: the resource is InService again, recorded. */
export async function noticeProfileBack(resource: Pick<Resource, 'id' | 'name' | 'inference_profile'>, actor: SystemActor, now = new Date()) {
  const back = await markProfileBack(resource.id, now.toISOString());
  if (back) {
    await recordSystemAction(
      {
        actor,
        action: 'resource.recovered',
        target: resource.id,
        reason: `Resource "${resource.name}": inference profile "${resource.inference_profile?.id}" is offered again; the resource is InService`,
        metric: { name: 'ReconciliationChanges', dimensions: { change: 'profile_back' } },
      },
      now,
    );
  }
  return back;
}
