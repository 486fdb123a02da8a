/**
 * Every page of the console in one table: its path, who may see it, and its place in the navigation.
 * The routes and both menus are derived from it, so a new page (API keys when the gateway lands,
 * guardrails and orphans) is one entry here and one file under pages/.
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
  roles: readonly Role[];
  /** Shown in the main menu (group "main") or the admin menu, under this name. */
  nav?: { label: string; group: 'main' | 'admin'; href?: string };
}

const EVERYONE = ['user', 'admin', 'super_admin'] as const;
const ADMINS = ['admin', 'super_admin'] as const;
const SUPER = ['super_admin'] as const;

export const PAGES: Page[] = [
  { path: '/models/:platform?', component: lazy(() => import('./pages/Models')), roles: EVERYONE, nav: { label: 'Models', group: 'main', href: '/models' } },
  { path: '/model', component: lazy(() => import('./pages/ModelDetail')), roles: EVERYONE },
  { path: '/deploy/:platform?', component: lazy(() => import('./pages/Deploy')), roles: ADMINS, nav: { label: 'Deploy', group: 'main', href: '/deploy' } },
  { path: '/resources', component: lazy(() => import('./pages/Resources')), roles: EVERYONE, nav: { label: 'Resources', group: 'main' } },
  { path: '/resources/:id', component: lazy(() => import('./pages/ResourceDetail')), roles: EVERYONE },
  { path: '/chat', component: lazy(() => import('./pages/Chat')), roles: EVERYONE, nav: { label: 'Chat', group: 'main' } },
  { path: '/chat/:conversationId', component: lazy(() => import('./pages/Chat')), roles: EVERYONE },
  { path: '/usage', component: lazy(() => import('./pages/Usage')), roles: EVERYONE, nav: { label: 'Usage', group: 'main' } },
  { path: '/admin/users', component: lazy(() => import('./pages/admin/Users')), roles: SUPER, nav: { label: 'Users', group: 'admin' } },
  { path: '/admin/credentials', component: lazy(() => import('./pages/admin/Credentials')), roles: ADMINS, nav: { label: 'Credentials', group: 'admin' } },
  { path: '/admin/pricing', component: lazy(() => import('./pages/admin/Pricing')), roles: ADMINS, nav: { label: 'Pricing', group: 'admin' } },
  { path: '/admin/audit', component: lazy(() => import('./pages/admin/Audit')), roles: SUPER, nav: { label: 'Audit log', group: 'admin' } },
  { path: '/admin/sync', component: lazy(() => import('./pages/admin/Sync')), roles: ADMINS, nav: { label: 'Model sync', group: 'admin' } },
];

export const allowed = (page: Page, role: Role) => page.roles.includes(role);
