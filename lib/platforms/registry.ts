/**
 * The platforms by name: their traits (plain data, no SDK client), so that any module may ask what a
 * platform is without bundling its clients. The clients are reached through the modules that need
 * them: chat.ts for every platform's chat, endpoints.ts (`endpointsOf`) for the endpoint lifecycle.
 */
import { dedicatedTraits } from './dedicated/traits';
import { hostedTraits } from './hosted/traits';
import { managedTraits } from './managed/traits';
import type { PlatformName, PlatformTraits } from './types';

const TRAITS: Record<PlatformName, PlatformTraits> = { managed: managedTraits, dedicated: dedicatedTraits, hosted: hostedTraits };

export const traitsOf = (name: PlatformName): PlatformTraits => TRAITS[name];
