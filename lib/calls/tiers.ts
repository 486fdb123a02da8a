import { BadRequest, Forbidden } from '../errors';
import { serviceTiersOfResource } from '../platforms/capabilities';
import type { ServiceTier } from '../platforms/types';
import type { Resource } from '../../tables/resources';
import type { Payer } from './levels';

/**
 * The processing tier of a call (Bedrock's Priority, Standard and Flex), decided before anything is
 * held, so that the hold is priced at the tier that will serve:
 *
 *   - the tiers the model offers: Bedrock's list for a managed model (managed/features.ts), Standard
 *     alone elsewhere (the hosted API and the endpoints have no tiers);
 *   - the tiers the caller may use: the key's `allowed_service_tiers` (a batch job's key limited to
 *     flex); null or absent: every tier;
 *   - a tier asked for that the caller may not use is a 403, one the model lacks a 400;
 *   - none asked for (OpenAI's `auto`): Standard, unless the caller may not use Standard; then the
 *     first allowed tier the model offers, so a flex-only key's calls run on flex without saying so.
 *
 * undefined: Standard, by the platform's default (nothing is sent).
 */
export function serviceTierOf(payer: Payer, resource: Resource, asked: ServiceTier | undefined): ServiceTier | undefined {
  const offered = serviceTiersOfResource(resource);
  const allowed = allowedTiers(payer);
  if (asked !== undefined) {
    if (allowed && !allowed.includes(asked)) {
      throw new Forbidden(`This API key may not use the ${asked} service tier (allowed: ${allowed.join(', ')})`, {
        code: 'service_tier_not_allowed',
        param: 'service_tier',
      });
    }
    if (!offered.includes(asked)) {
      throw new BadRequest(`The model '${resource.endpoint_name}' does not offer the ${asked} service tier (it offers: ${offered.join(', ')})`, {
        code: 'service_tier_not_offered',
        param: 'service_tier',
      });
    }
    return asked;
  }
  if (!allowed || allowed.includes('default')) return undefined;
  const tier = allowed.find((t) => offered.includes(t));
  if (!tier) {
    throw new Forbidden(
      `This API key may use only the ${allowed.join(', ')} service tier, which the model '${resource.endpoint_name}' does not offer`,
      {
        code: 'service_tier_not_allowed',
        param: 'service_tier',
      },
    );
  }
  return tier;
}

/** The tiers the payer's key allows; undefined: no limit (a call without a key, or a key without a list). */
const allowedTiers = (payer: Payer): ServiceTier[] | undefined => payer.key?.allowed_service_tiers ?? undefined;
