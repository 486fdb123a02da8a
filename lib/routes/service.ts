import { randomUUID } from 'node:crypto';
import type { Resource } from '../../tables/resources';
import {
  ROUTE_FAILURES,
  getRoute,
  insertRoute,
  listRoutes,
  removeRoute,
  replaceRoute,
  resourcesById,
  targetResources,
  type Route,
  type RouteFailure,
  type RouteStrategy,
  type RouteTarget,
  type TargetResource,
} from '../../tables/routes';
import type { User } from '../../tables/users';
import { isAdminRole, usableBy } from '../calls/access';
import { forgetRoute } from '../calls/resolve';
import { BadRequest, NotFound } from '../errors';
import { capabilitiesOf } from '../platforms/capabilities';

/**
 * Routes, managed by admins (POST/GET /api/routes, GET/PATCH/DELETE /api/routes/{routeId}): a name
 * /v1 callers may give as `model` for several resources of one kind, with how to choose among them
 * and which failures fall over (lib/routes/attempts.ts calls through them). Users see the routes they
 * may call, with only the targets they may call.
 */

const DEFAULT_COOLDOWN_SECONDS = 30;

export interface RouteInput {
  name: string;
  strategy: RouteStrategy;
  targets: { resource_id: string; weight?: number }[];
  cooldown_seconds?: number;
  retry_on?: RouteFailure[];
}

/** What kind of call a resource serves; a route's targets all serve the same. */
const kindOf = (resource: Resource): 'chat' | 'embeddings' => (capabilitiesOf(resource).chat ? 'chat' : 'embeddings');

const routeNotFound = (id: string) => new NotFound(`Route ${id} not found`);

/** The targets as stored: each an existing resource, none twice, all of one kind (400 naming the field otherwise). */
async function checkedTargets(targets: RouteInput['targets']): Promise<RouteTarget[]> {
  const ids = targets.map((t) => t.resource_id);
  const twice = ids.findIndex((id, i) => ids.indexOf(id) !== i);
  if (twice >= 0) throw new BadRequest(`targets[${twice}].resource_id names a resource already among the targets`, { param: `targets[${twice}]` });
  const found = await resourcesById(ids);
  const missing = ids.findIndex((id) => !found.has(id));
  if (missing >= 0) {
    throw new BadRequest(`targets[${missing}].resource_id: no resource ${ids[missing]}`, { param: `targets[${missing}].resource_id` });
  }
  const resources = ids.map((id) => found.get(id) as Resource);
  const kinds = new Set(resources.map(kindOf));
  if (kinds.size > 1) {
    throw new BadRequest('A route’s targets must all serve the same kind of call: chat models or embedding models, not both', { param: 'targets' });
  }
  return targets.map((t, i) => {
    const r = resources[i] as Resource;
    return { resource_id: r.id, weight: t.weight ?? 1, endpoint_name: r.endpoint_name, type: r.type };
  });
}

/**
 * A route as the API shows it: each target with its resource's name and status (`gone` once deleted)
 * and the route's cooldown of it, read from the resource's item as every call reads it.
 */
function routeView(route: Route, read: Map<string, TargetResource>, now: number, only?: ReadonlySet<string>) {
  const resources = new Map([...read].map(([id, t]) => [id, t.resource]));
  const targets = route.targets
    .filter((t) => !only || only.has(t.resource_id))
    .map((t) => {
      const resource = resources.get(t.resource_id);
      const cooldown = read.get(t.resource_id)?.cooldowns[route.id];
      const cooling = cooldown && cooldown.until > now ? cooldown : undefined;
      return {
        resource_id: t.resource_id,
        weight: t.weight,
        endpoint_name: resource?.endpoint_name ?? t.endpoint_name,
        type: resource?.type ?? t.type,
        status: resource ? resource.status : 'gone',
        gone: !resource,
        cooldown_until: cooling ? new Date(cooling.until).toISOString() : null,
        cooldown_reason: cooling?.reason ?? null,
      };
    });
  const present = [...resources.values()].filter((r) => route.targets.some((t) => t.resource_id === r.id));
  return {
    id: route.id,
    name: route.name,
    strategy: route.strategy,
    kind: present[0] ? kindOf(present[0]) : null,
    targets,
    cooldown_seconds: route.cooldown_seconds,
    retry_on: route.retry_on,
    created_at: route.created_at,
    updated_at: route.updated_at,
  };
}

export type RouteView = ReturnType<typeof routeView>;

/** The routes as this caller sees them: all with every target for admins; for users those with a target they may call, showing only those. */
async function viewsFor(user: User, routes: Route[], now = Date.now()): Promise<RouteView[]> {
  const targets = await targetResources([...new Set(routes.flatMap((r) => r.targets.map((t) => t.resource_id)))]);
  if (isAdminRole(user.role)) return routes.map((r) => routeView(r, targets, now));
  const usable = new Set(
    (
      await usableBy(
        user,
        [...targets.values()].map((t) => t.resource),
      )
    ).map((r) => r.id),
  );
  return routes.filter((r) => r.targets.some((t) => usable.has(t.resource_id))).map((r) => routeView(r, targets, now, usable));
}

export async function createRoute(user: User, input: RouteInput, now = new Date()) {
  const at = now.toISOString();
  const route: Route = {
    id: randomUUID(),
    name: input.name,
    strategy: input.strategy,
    targets: await checkedTargets(input.targets),
    cooldown_seconds: input.cooldown_seconds ?? DEFAULT_COOLDOWN_SECONDS,
    retry_on: input.retry_on ? [...new Set(input.retry_on)] : [...ROUTE_FAILURES],
    created_at: at,
    updated_at: at,
    created_by: user.id,
  };
  await insertRoute(route);
  return { route: (await viewsFor(user, [route], now.getTime()))[0] };
}

export async function listRoutesFor(user: User, query: { limit: number; cursor?: string }) {
  const page = await listRoutes(query);
  return { routes: await viewsFor(user, page.routes), nextCursor: page.nextCursor };
}

/** One route; a user who may call none of its targets is told it does not exist. */
export async function getRouteFor(user: User, routeId: string) {
  const route = await getRoute(routeId);
  const [view] = route ? await viewsFor(user, [route]) : [];
  if (!view) throw routeNotFound(routeId);
  return { route: view };
}

export async function updateRoute(user: User, routeId: string, changes: Partial<RouteInput>, now = new Date()) {
  const before = await getRoute(routeId);
  if (!before) throw routeNotFound(routeId);
  const after: Route = {
    ...before,
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.strategy !== undefined && { strategy: changes.strategy }),
    ...(changes.targets !== undefined && { targets: await checkedTargets(changes.targets) }),
    ...(changes.cooldown_seconds !== undefined && { cooldown_seconds: changes.cooldown_seconds }),
    ...(changes.retry_on !== undefined && { retry_on: [...new Set(changes.retry_on)] }),
    updated_at: now.toISOString(),
  };
  await replaceRoute(before, after);
  forgetRoute(routeId);
  return { route: (await viewsFor(user, [after], now.getTime()))[0] };
}

export async function deleteRoute(user: User, routeId: string) {
  const route = await getRoute(routeId);
  if (!route || !(await removeRoute(route))) throw routeNotFound(routeId);
  forgetRoute(routeId);
  return { route: (await viewsFor(user, [route]))[0] };
}
