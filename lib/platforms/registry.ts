/**
 * The platforms by name: their traits (plain data, no SDK client), so that any module may ask what a
 * platform is without bundling its clients. The clients are reached through the modules that need
 * them: chat.ts for every platform's chat, endpoints.ts (`endpointsOf`) for the endpoint lifecycle.
 */
import { dedicatedTraits } from './dedicated/traits';
import { hostedTraits } from './hosted/traits';
import { managedTraits } from './managed/traits';
import { PLATFORMS, type PlatformName, type PlatformTraits } from './types';

const TRAITS: Record<PlatformName, PlatformTraits> = { managed: managedTraits, dedicated: dedicatedTraits, hosted: hostedTraits };

export const traitsOf = (name: PlatformName): PlatformTraits => TRAITS[name];

/** The platforms whose calls are priced per token (price entries per model), in the registry's order. */
export const tokenPricedPlatforms = (): PlatformName[] => PLATFORMS.filter((name) => TRAITS[name].billing === 'per-token');

/**
 * A platform as the API describes it (GET /api/platforms, and a resource's `lifecycle` and `billing`):
 * the traits a client acts on, in the API's words, so that a client never decides by a platform's name.
 */
export function describePlatform(name: PlatformName) {
  const traits = TRAITS[name];
  return {
    id: name,
    label: traits.label,
    description: traits.description,
    billing: traits.billing === 'per-hour' ? ('per_hour' as const) : ('per_token' as const),
    lifecycle: traits.lifecycle === 'endpoint' ? ('endpoint' as const) : ('access' as const),
    service_tiers: traits.serviceTiers,
  };
}

/** Every platform as the API describes it, in the registry's order (GET /api/platforms). */
export const describePlatforms = () => PLATFORMS.map(describePlatform);
