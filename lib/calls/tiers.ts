import { BadRequest, Forbidden } from '../errors';
import { serviceTiersOfResource } from '../platforms/capabilities';
import type { ServiceTier } from '../platforms/types';
import type { Resource } from '../../tables/resources';
import { teamsOf, type Payer } from './levels';

/**
 * The processing tier of a call (Bedrock's Priority, Standard and Flex), decided before anything is
 * held, so that the hold is priced at the tier that will serve:
 *
 *   - the tiers the model offers: Bedrock's list for a managed model (managed/features.ts), Standard
 *     alone elsewhere (the hosted API and the endpoints have no tiers);
 *   - the tiers the caller may use: the key's `allowed_service_tiers` (a batch job's key limited to
 *     flex) and those of each team the call counts in (a team kept to flex for its bulk work); a
 *     call must satisfy all of them; none set: every tier;
 *   - a tier asked for that the caller may not use is a 403, one the model lacks a 400;
 *   - none asked for (OpenAI's `auto`): Standard, unless the caller may not use Standard; then the
 *     first allowed tier the model offers, so a flex-only key's or team's calls run on flex without saying so.
 *
 * undefined: Standard, by the platform's default (nothing is sent).
 */
export function serviceTierOf(payer: Payer, resource: Resource, asked: ServiceTier | undefined): ServiceTier | undefined {
  const offered = serviceTiersOfResource(resource);
  const limits = tierLimitsOf(payer);
  if (asked !== undefined) {
    const refusing = limits.find((l) => !l.tiers.includes(asked));
    if (refusing) {
      throw new Forbidden(`${refusing.who} may not use the ${asked} service tier (allowed: ${refusing.tiers.join(', ')})`, {
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
  if (limits.length === 0) return undefined;
  // What every limit allows, in the first limit's order (a key's list says which tier it prefers).
  const allowed = limits[0]!.tiers.filter((t) => limits.every((l) => l.tiers.includes(t)));
  if (allowed.includes('default')) return undefined;
  const tier = allowed.find((t) => offered.includes(t));
  if (!tier) {
    const rules = limits.map((l) => `${l.who} may use only ${l.tiers.join(', ')}`).join('; ');
    throw new Forbidden(
      `No service tier is open to this call on the model '${resource.endpoint_name}' (it offers: ${offered.join(', ')}): ${rules}`,
      {
        code: 'service_tier_not_allowed',
        param: 'service_tier',
      },
    );
  }
  return tier;
}

interface TierLimit {
  /** Who sets it, as a refusal names it. */
  who: string;
  tiers: ServiceTier[];
}

/**
 * The tier limits a call is held to: its key's `allowed_service_tiers`, and each team the call counts
 * in (a team key's team, else every team of the caller) that has one, as the membership copies it.
 * None: every tier.
 */
function tierLimitsOf(payer: Payer): TierLimit[] {
  const limits: TierLimit[] = payer.key?.allowed_service_tiers ? [{ who: 'This API key', tiers: payer.key.allowed_service_tiers }] : [];
  for (const m of teamsOf(payer)) {
    if (m.team.allowed_service_tiers) limits.push({ who: `Team "${m.team.name}"`, tiers: m.team.allowed_service_tiers });
  }
  return limits;
}
