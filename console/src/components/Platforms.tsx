import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { chosenPlatform, usePlatforms, type Platform, type PlatformDescription } from '../api/platforms';
import { ErrorText, PageTitle, Spinner } from './ui';

/** One tab per platform the service lists, each a page under `base` (/models/managed, /deploy/hosted, …). */
function PlatformTabs({ base, platforms, current }: { base: string; platforms: PlatformDescription[]; current: Platform }) {
  return (
    <nav aria-label="Platforms" className="tabs">
      <ul>
        {platforms.map((p) => (
          <li key={p.id}>
            <Link href={`${base}/${p.id}`} aria-current={p.id === current ? 'page' : undefined}>
              {p.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** What a page shows while the platforms are not known yet: a spinner, or why they could not be read. */
export function PlatformsPending({ error }: { error: unknown }) {
  return error ? <ErrorText error={error} /> : <Spinner label="Loading the platforms…" />;
}

/**
 * A page with a tab per platform (Models, Deploy): its title, the tabs, the chosen platform's
 * description (and `lead` after it), then what `children` shows for that platform. The platform is
 * the one `requested` names (the address), else the first the service lists.
 */
export function PlatformPage(props: { title: string; base: string; requested?: string; lead?: string; children: (platform: Platform) => ReactNode }) {
  const { platforms, error } = usePlatforms();
  const platform = chosenPlatform(platforms, props.requested);
  return (
    <section>
      <PageTitle>{props.title}</PageTitle>
      {platforms && platform ? (
        <>
          <PlatformTabs base={props.base} platforms={platforms} current={platform.id} />
          <p className="lead">{[platform.description, props.lead].filter(Boolean).join(' ')}</p>
          {props.children(platform.id)}
        </>
      ) : (
        <PlatformsPending error={error} />
      )}
    </section>
  );
}
