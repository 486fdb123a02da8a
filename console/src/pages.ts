/**
 * Every page of the console in one table: its path, who may see it, and its place in the navigation.
 * The routes and both menus are derived from it, so a new page is one entry here and one file under
 * pages/.
 *
 * Paths never carry a dot in their last segment (the deploy answers those from its files, see
 * console/deploy/spa-rewrite.js): model ids, which have dots, go in the query string.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Role } from './api/session';

export interface Page {
  /** wouter pattern */
  path: string;
  component: LazyExoticComponent<ComponentType>;
  /** Loads the page's chunk ahead of need (React.lazy loads it once, whoever asks first). */
  preload: () => Promise<unknown>;
  roles: readonly Role[];
  /** Shown in the main menu (group "main") or the admin menu, under this name. */
  nav?: { label: string; group: 'main' | 'admin'; href?: string };
}

/**
 * A page's chunk, lazily loaded. Once loaded (by `preload` or a first visit), the lazy component
 * gets it synchronously: React then renders the page at once instead of showing the Suspense
 * fallback, which it keeps for at least 300 ms once shown.
 */
function chunk(load: () => Promise<{ default: ComponentType }>) {
  let loaded: { default: ComponentType } | undefined;
  const preload = () => load().then((m) => (loaded = m));
  const component = lazy(() =>
    loaded ? ({ then: (done: (m: { default: ComponentType }) => void) => done(loaded as { default: ComponentType }) } as never) : preload(),
  );
  return { component, preload };
}

const EVERYONE = ['user', 'admin', 'super_admin'] as const;
const ADMINS = ['admin', 'super_admin'] as const;
const SUPER = ['super_admin'] as const;

export const PAGES: Page[] = [
  {
    path: '/models/:platform?',
    ...chunk(() => import('./pages/Models')),
    roles: EVERYONE,
    nav: { label: 'Models', group: 'main', href: '/models' },
  },
  { path: '/model', ...chunk(() => import('./pages/ModelDetail')), roles: EVERYONE },
  {
    path: '/deploy/:platform?',
    ...chunk(() => import('./pages/Deploy')),
    roles: ADMINS,
    nav: { label: 'Deploy', group: 'main', href: '/deploy' },
  },
  { path: '/resources', ...chunk(() => import('./pages/Resources')), roles: EVERYONE, nav: { label: 'Resources', group: 'main' } },
  { path: '/resources/:id', ...chunk(() => import('./pages/ResourceDetail')), roles: EVERYONE },
  { path: '/routes', ...chunk(() => import('./pages/Routes')), roles: EVERYONE, nav: { label: 'Routes', group: 'main' } },
  { path: '/chat', ...chunk(() => import('./pages/Chat')), roles: EVERYONE, nav: { label: 'Chat', group: 'main' } },
  { path: '/chat/:conversationId', ...chunk(() => import('./pages/Chat')), roles: EVERYONE },
  { path: '/usage', ...chunk(() => import('./pages/Usage')), roles: EVERYONE, nav: { label: 'Usage', group: 'main' } },
  { path: '/keys', ...chunk(() => import('./pages/Keys')), roles: EVERYONE, nav: { label: 'API keys', group: 'main' } },
  { path: '/teams', ...chunk(() => import('./pages/Teams')), roles: EVERYONE, nav: { label: 'Teams', group: 'main' } },
  { path: '/teams/:id', ...chunk(() => import('./pages/Teams').then((m) => ({ default: m.TeamDetail }))), roles: EVERYONE },
  { path: '/admin/users', ...chunk(() => import('./pages/admin/Users')), roles: SUPER, nav: { label: 'Users', group: 'admin' } },
  {
    path: '/admin/credentials',
    ...chunk(() => import('./pages/admin/Credentials')),
    roles: ADMINS,
    nav: { label: 'Credentials', group: 'admin' },
  },
  { path: '/admin/pricing', ...chunk(() => import('./pages/admin/Pricing')), roles: ADMINS, nav: { label: 'Pricing', group: 'admin' } },
  { path: '/admin/audit', ...chunk(() => import('./pages/admin/Audit')), roles: SUPER, nav: { label: 'Audit log', group: 'admin' } },
  { path: '/admin/sync', ...chunk(() => import('./pages/admin/Sync')), roles: ADMINS, nav: { label: 'Model sync', group: 'admin' } },
  { path: '/admin/orphans', ...chunk(() => import('./pages/admin/Orphans')), roles: ADMINS, nav: { label: 'Orphans', group: 'admin' } },
  { path: '/admin/alerts', ...chunk(() => import('./pages/admin/Alerts')), roles: ADMINS, nav: { label: 'Alerts', group: 'admin' } },
];

export const allowed = (page: Page, role: Role) => page.roles.includes(role);

/** Starts loading the chunk of the page at `path` (for example while the login call is under way). */
export function preloadPage(path: string): void {
  const bare = path.split('?')[0] as string;
  const page = PAGES.find((p) => {
    const prefix = p.path.split('/:')[0] as string;
    return bare === prefix || bare.startsWith(`${prefix}/`);
  });
  void page?.preload().catch(() => undefined);
}

/**
 * Loads every page the role may open, a little after the first page is shown and when the browser is
 * idle, so that it does not compete with that page's own requests.
 */
export function preloadAll(role: Role): void {
  const run = () => PAGES.filter((p) => allowed(p, role)).forEach((p) => void p.preload().catch(() => undefined));
  setTimeout(() => ('requestIdleCallback' in window ? window.requestIdleCallback(run, { timeout: 3000 }) : run()), 2000);
}
