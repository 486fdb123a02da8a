/**
 * The platforms as the service describes them (GET /api/platforms: label, description, billing,
 * lifecycle, service tiers), so that no page knows a platform by its name. The description is static
 * for a deployment: it is asked once per page load and kept in memory, like the session; a failed
 * answer is asked again by the next page that needs it.
 */
import { useEffect, useState } from 'react';
import { api, unwrap, type Schemas } from './client';

export type Platform = Schemas['Platform'];
export type PlatformDescription = Schemas['PlatformDescription'];

let known: PlatformDescription[] | undefined;
let pending: Promise<PlatformDescription[]> | undefined;

function loadPlatforms(): Promise<PlatformDescription[]> {
  pending ??= unwrap(api.GET('/api/platforms')).then(
    (res) => (known = res.platforms),
    (err: unknown) => {
      pending = undefined;
      throw err;
    },
  );
  return pending;
}

/** The platforms: at once once known, else when the service has answered; `error` when it could not. */
export function usePlatforms(): { platforms?: PlatformDescription[]; error?: unknown } {
  const [state, setState] = useState<{ platforms?: PlatformDescription[]; error?: unknown }>(() => ({ platforms: known }));
  useEffect(() => {
    if (state.platforms) return;
    let live = true;
    loadPlatforms().then(
      (platforms) => live && setState({ platforms }),
      (error: unknown) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [state.platforms]);
  return state;
}

/** The platform a page's address names, else the first the service lists. */
export const chosenPlatform = (platforms: PlatformDescription[] | undefined, requested: string | null | undefined) =>
  platforms?.find((p) => p.id === requested) ?? platforms?.[0];
