import { logger } from '../../core/observability';
import type { Resource, ResourceInferenceProfile } from '../../tables/resources';
import { NotInService, UpstreamError } from '../errors';
import { getProfile } from '../platforms/managed/profiles';

/**
 * A call to a managed resource whose inference profile is gone (a system profile AWS no longer offers,
 * an application profile deleted outside the service): Bedrock answers a bare "The provided model
 * identifier is invalid". The caller is told which profile, and what to do; the reconciler marks the
 * resource Failed and records it (lib/resources/profile-health.ts).
 */

const what = (p: ResourceInferenceProfile) => (p.type === 'APPLICATION' ? `Application inference profile ${p.arn}` : `Inference profile "${p.id}"`);

/** Why the resource cannot answer, in words a caller and an admin can act on. */
export function profileMissingReason(p: ResourceInferenceProfile): string {
  const gone =
    p.type === 'APPLICATION'
      ? 'no longer exists on Bedrock (deleted outside this service)'
      : "is no longer offered by Bedrock in the service's Region";
  return `${what(p)} ${gone}: calls to this resource cannot reach the model. Delete the resource and deploy the model again (GET /api/models/managed lists the profiles on offer)`;
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
 * gone, the caller is told so; otherwise (or when the profile cannot be read) the platform's own
 * failure stands.
 */
export async function explainProfileFailure(resource: Resource, err: unknown): Promise<unknown> {
  const profile = resource.inference_profile;
  if (!profile || !(err instanceof UpstreamError) || (err.upstreamStatus !== 400 && err.upstreamStatus !== 404)) return err;
  const found = await getProfile(profile.type === 'APPLICATION' ? profile.arn : profile.id).catch((e: Error) => {
    logger.warn({ message: 'inference profile not read', resourceId: resource.id, error: e.message });
    return 'unknown' as const;
  });
  return found === undefined ? profileMissingError(resource) : err;
}
