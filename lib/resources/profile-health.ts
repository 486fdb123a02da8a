import { recordSystemAction, type SystemActor } from '../audit/system';
import { NotInService, UpstreamError } from '../errors';
import { logger } from '../../core/observability';
import { getProfile } from '../platforms/managed/profiles';
import { markProfileBack, markProfileMissing, type Resource, type ResourceInferenceProfile, type TrackedResource } from '../../tables/resources';

/**
 * A managed resource reaches its model through an inference profile (lib/deploy/inference-profile.ts),
 * and that profile can disappear under it: AWS stops listing a system-defined profile in the Region,
 * or someone deletes the application profile outside this service. Bedrock then refuses every call
 * with a bare "The provided model identifier is invalid". Whoever notices first (the reconciler's
 * pass, or a call that Bedrock refused) marks the resource Failed and unhealthy with the reason, once
 * (the write is conditional on InService), and records it as a system event; calls are then refused
 * before the platform is asked, naming the profile. A system profile listed again brings the resource
 * back to InService.
 */

const what = (p: ResourceInferenceProfile) => (p.type === 'APPLICATION' ? `Application inference profile ${p.arn}` : `Inference profile "${p.id}"`);

/** Why the resource cannot answer, in words a caller and an admin can act on. */
function profileMissingReason(p: ResourceInferenceProfile): string {
  const gone =
    p.type === 'APPLICATION'
      ? 'no longer exists on Bedrock (deleted outside this service)'
      : "is no longer offered by Bedrock in the service's Region";
  return `${what(p)} ${gone}: calls to this resource cannot reach the model. Delete the resource and deploy the model again (GET /api/models/managed lists the profiles on offer)`;
}

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

/** The refusal of a call to a resource whose profile is gone: 404 on the spec's chat, 503 on OpenAI's routes (lib/http/errors.ts). */
export const profileMissingError = (resource: Pick<Resource, 'name' | 'inference_profile'>) =>
  new NotInService(
    `Resource '${resource.name}' cannot answer: its inference profile '${resource.inference_profile?.id}' no longer exists on Bedrock`,
    true,
    resource.inference_profile ? profileMissingReason(resource.inference_profile) : undefined,
  );

/**
 * Why a call through a profile failed: when Bedrock refused the target (400 or 404) and the profile is
 * gone, the resource is marked and the caller told so; otherwise (or when the profile cannot be read)
 * the platform's own failure stands.
 */
export async function explainProfileFailure(resource: Resource, err: unknown): Promise<unknown> {
  const profile = resource.inference_profile;
  if (!profile || !(err instanceof UpstreamError) || (err.upstreamStatus !== 400 && err.upstreamStatus !== 404)) return err;
  const found = await getProfile(profile.type === 'APPLICATION' ? profile.arn : profile.id).catch(() => 'unknown' as const);
  if (found !== undefined) return err;
  await noticeProfileMissing(resource, 'status-sync').catch((e: Error) =>
    logger.warn({ message: 'missing inference profile not recorded', resourceId: resource.id, error: e.message }),
  );
  return profileMissingError(resource);
}
