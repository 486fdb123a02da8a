import { config } from '../../core/config';
import { PLATFORMS, type PlatformName } from '../../core/vocabulary';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { getResource, listResources, type Resource } from '../../tables/resources';
import {
  cooldownsOf,
  getRoute,
  listRoutes,
  modelNamed,
  targetResources,
  type Cooldown,
  type ExpectedHolder,
  type NameHolder,
  type Route,
  type TargetResource,
} from '../../tables/routes';
import { Forbidden, NotFound } from '../errors';
import { mayCall, usableBy } from './access';

/**
 * Model names, as /v1 callers give them: a resource's endpoint name, or `<platform>/<name>`.
 *
 * Endpoint names are unique per platform, not across platforms; a name that two platforms share is
 * answered only as `<platform>/<name>`, so a model id never means two resources and never changes
 * meaning when a second platform takes the name. An unambiguous name also answers as
 * `<platform>/<name>`.
 *
 * Resolving a name costs the same at 10 and at 10,000 resources: the name guards of the platforms it
 * may be on, one BatchGet (tables/resources.ts resourcesNamed). The container remembers which
 * resource held a name last, so the same BatchGet also brings that resource's item and the usual call
 * needs no second round trip; a guard that now points elsewhere (the name changed hands) costs one.
 *
 * A route (tables/routes.ts) holds its name on every platform's guard, so the same BatchGet finds it.
 * The container remembers the route's definition for ROUTE_DEFINITION_TTL_SECONDS after reading it
 * (the name, then, cannot have changed hands without the route's own change: the route holds the name
 * on every platform), so a call within that time reads only its targets' resource items, which carry
 * the route's cooldowns: one BatchGet of as many items as the route has targets, where a direct call
 * reads its name's guards and its resource. After that time the guards, the route item and its
 * targets are read again, in the same one round trip. A change made on this instance
 * (lib/routes/service.ts) is seen here at once (forgetRoute); on another, after at most that time.
 * Cooldowns are never kept in memory: every call reads them from the table.
 */

const HOLDERS_KEPT = 5_000;

/** What held a name when this container last resolved it: a resource, or a route read at `readAt` (epoch ms). */
type Known = { resourceId: string } | { route: Route; readAt: number };
const lastHolder = new Map<string, Known>();

function remember(wanted: string, known: Known): void {
  lastHolder.delete(wanted);
  if (lastHolder.size >= HOLDERS_KEPT) lastHolder.delete(lastHolder.keys().next().value as string);
  lastHolder.set(wanted, known);
  if ('route' in known) rememberRoute(known.route, known.readAt);
}

/** Route definitions by id, read at `readAt`: the session chat names a route by its id (routeTargetById). */
const routesById = new Map<string, { route: Route; readAt: number }>();

function rememberRoute(route: Route, readAt: number): void {
  routesById.delete(route.id);
  if (routesById.size >= HOLDERS_KEPT) routesById.delete(routesById.keys().next().value as string);
  routesById.set(route.id, { route, readAt });
}

/** Whether a route definition read at `readAt` may still be used without reading it again (not if the clock went back past it). */
function fresh(readAt: number, now = Date.now()): boolean {
  const age = now - readAt;
  return age >= 0 && age < config.routes.definitionSeconds * 1000;
}

/** A route changed or deleted by this instance: its next call reads it again (its name's guards included). */
export function forgetRoute(routeId: string): void {
  for (const [wanted, known] of lastHolder) if ('route' in known && known.route.id === routeId) lastHolder.delete(wanted);
  routesById.delete(routeId);
}

const expectedOf = (known: Known): ExpectedHolder =>
  'route' in known ? { routeId: known.route.id, targetIds: known.route.targets.map((t) => t.resource_id) } : known;

/** The name and the platforms it may be on: `<platform>/<name>` names one; a bare name is looked up on all. */
function parseModelName(model: string): { name: string; types: readonly PlatformName[] } {
  const slash = model.indexOf('/');
  const prefix = slash > 0 ? model.slice(0, slash).toLowerCase() : '';
  const platform = PLATFORMS.find((p) => p === prefix);
  return platform ? { name: model.slice(slash + 1), types: [platform] } : { name: model, types: PLATFORMS };
}

const modelNotFound = (model: string) =>
  new NotFound(`The model '${model}' does not exist or this API key may not use it (GET /v1/models lists them)`, {
    code: 'model_not_found',
    param: 'model',
  });

/**
 * What a model name points at: the resources (or the route) holding it, and what the container expected,
 * read beside them. `remembered`: a route this container read less than ROUTE_DEFINITION_TTL_SECONDS ago,
 * at `readAt`, with only its targets read now (no guard was read: `holders` is empty).
 */
export interface NameLookup {
  wanted: string;
  holders: NameHolder[];
  expected?: Resource;
  route?: Route;
  targets?: Map<string, TargetResource>;
  readAt?: number;
  remembered?: true;
}

/**
 * The holders of a model name (one round trip). It needs no key, so it runs beside the key's
 * lookup (lib/http/key-endpoint.ts prefetch); resolveModel then decides with the key.
 */
export async function lookUpModel(model: string): Promise<NameLookup> {
  const { name, types } = parseModelName(model);
  const wanted = `${types.length === 1 ? types[0] : '*'}/${name.toLowerCase()}`;
  const known = lastHolder.get(wanted);
  if (known && 'route' in known && fresh(known.readAt)) {
    const targets = await targetResources(known.route.targets.map((t) => t.resource_id));
    return { wanted, holders: [], route: known.route, targets, readAt: known.readAt, remembered: true };
  }
  const readAt = Date.now();
  const found = await modelNamed(name, types, known && expectedOf(known));
  return { wanted, holders: found.holders, expected: found.resource, route: found.route, targets: found.targets, readAt };
}

/** Whether a key may call a resource (its resource_ids, when it has any). */
const mayUseId = (key: Pick<ApiKey, 'resource_ids'>, id: string) => !key.resource_ids || key.resource_ids.includes(id);

/**
 * What a call names: one resource, or a route and the resources among its targets this key and its
 * owner may call (in the route's order; the route chooses among them, lib/calls/attempts.ts).
 */
export type CallTarget = { resource: Resource; route?: undefined } | { route: Route; resources: Resource[]; cooldowns: Record<string, Cooldown> };

/**
 * The resource a call names, for this key and its owner; 404 model_not_found when there is none they
 * may use. Among the resources the key may use, a bare name two platforms share means neither: it must
 * be asked for as <platform>/<name> (as GET /v1/models lists it). A resource the owner may not call
 * (lib/calls/access.ts) answers as OpenAI answers a model the key cannot use: 404 model_not_found,
 * the same as a name nobody holds, so a caller learns nothing of resources they may not use. A route
 * is named by its bare name only, and answers the same 404 when the caller may use none of its targets.
 */
export async function resolveTarget(key: ApiKey, user: User, model: string, prefetched?: Promise<NameLookup>): Promise<CallTarget> {
  const lookup = await (prefetched ?? lookUpModel(model));
  if (lookup.remembered && lookup.route) return resolveRoute(key, user, model, lookup, lookup.route.id);
  const routeHolder = lookup.holders.find((h) => 'routeId' in h);
  if (routeHolder) {
    if (!lookup.wanted.startsWith('*/')) throw modelNotFound(model);
    return resolveRoute(key, user, model, lookup, routeHolder.routeId);
  }
  const usable = lookup.holders.filter((h) => 'resourceId' in h && mayUseId(key, h.resourceId));
  if (usable.length !== 1) throw modelNotFound(model);
  const { resourceId } = usable[0] as { resourceId: string };
  const resource = lookup.expected?.id === resourceId ? lookup.expected : await getResource(resourceId);
  if (!resource) throw modelNotFound(model);
  remember(lookup.wanted, { resourceId: resource.id });
  if (!(await mayCall(user, resource))) throw modelNotFound(model);
  return { resource };
}

async function resolveRoute(key: ApiKey, user: User, model: string, lookup: NameLookup, routeId: string): Promise<CallTarget> {
  const readAt = Date.now();
  const route = lookup.route?.id === routeId ? lookup.route : await getRoute(routeId);
  if (!route) throw modelNotFound(model);
  const ids = route.targets.map((t) => t.resource_id);
  const read = lookup.route === route ? (lookup.targets ?? new Map<string, TargetResource>()) : new Map<string, TargetResource>();
  const unread = ids.filter((id) => !read.has(id));
  // Targets the lookup did not bring (a cold container, targets changed): one more BatchGet.
  const targets = unread.length > 0 ? new Map([...read, ...(await targetResources(unread))]) : read;
  // A remembered definition keeps the time it was read: it is read again that long after, however often it is used.
  remember(lookup.wanted, { route, readAt: lookup.route === route ? (lookup.readAt ?? readAt) : readAt });
  const present = ids.flatMap((id) => {
    const target = targets.get(id);
    return target && mayUseId(key, id) ? [target.resource] : [];
  });
  const usable = await usableBy(user, present);
  if (usable.length === 0) throw modelNotFound(model);
  return { route, resources: usable, cooldowns: cooldownsOf(route, targets) };
}

/**
 * A route named by its id (the spec's session chat, whose body names a resource or a route by id):
 * the route and the targets this user may call, in the route's order; undefined when no route has the
 * id. The same rule as /v1: a user may use a route when they may use one of its targets, and the route
 * tries only those. A route with none they may use answers 403, as a resource they may not use does.
 * It costs two reads (the route, then its targets' resources), made only when the id named no resource.
 */
export async function routeTargetById(user: User, routeId: string): Promise<CallTarget | undefined> {
  // As for a route named on /v1: a definition read less than ROUTE_DEFINITION_TTL_SECONDS ago is used
  // again, and only its targets are read (they carry the cooldowns).
  const known = routesById.get(routeId);
  let route = known && fresh(known.readAt) ? known.route : undefined;
  if (!route) {
    const readAt = Date.now();
    route = await getRoute(routeId);
    if (!route) return undefined;
    rememberRoute(route, readAt);
  }
  const targets = await targetResources(route.targets.map((t) => t.resource_id));
  const present = route.targets.flatMap((t) => targets.get(t.resource_id)?.resource ?? []);
  const usable = await usableBy(user, present);
  if (usable.length === 0) {
    throw new Forbidden(`You may not use the route '${route.name}': ask an admin to grant you access to one of its targets`, {
      code: 'resource_access_denied',
    });
  }
  return { route, resources: usable, cooldowns: cooldownsOf(route, targets) };
}

// ------------------------------------------------------------------------------------- the listing

/** GET /v1/models lists the resources a key may use: a listing by nature (a page of 100 at a time). */
const MAX_PAGES = 100;

export interface GatewayModel {
  id: string;
  resource: Resource;
}

async function allResources(): Promise<Resource[]> {
  const resources: Resource[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await listResources({ limit: 100, cursor });
    resources.push(...out.resources);
    if (!out.nextCursor) break;
    cursor = out.nextCursor;
  }
  return resources;
}

/**
 * The resources this key and its owner may call, each with its model id (`<platform>/<name>` where two
 * platforms share the name among the key's resources: what resolveModel needs, whoever may call them).
 */
export async function modelsOfKey(key: Pick<ApiKey, 'resource_ids'>, user: User): Promise<GatewayModel[]> {
  const resources = (await allResources()).filter((r) => mayUseId(key, r.id));
  const platformsOf = new Map<string, Set<string>>();
  for (const r of resources) {
    const name = r.endpoint_name.toLowerCase();
    platformsOf.set(name, (platformsOf.get(name) ?? new Set()).add(r.type));
  }
  return (await usableBy(user, resources)).map((resource) => ({
    id:
      (platformsOf.get(resource.endpoint_name.toLowerCase())?.size ?? 0) > 1 ? `${resource.type}/${resource.endpoint_name}` : resource.endpoint_name,
    resource,
  }));
}

/** A route as GET /v1/models lists it: its name, and the resources among its targets this key and owner may call. */
export interface GatewayRoute {
  id: string;
  route: Route;
  resources: Resource[];
}

/**
 * The routes this key and its owner may call: those with at least one target among `usable` (what
 * modelsOfKey found they may call). Routes are few and written by admins only: one Query of their list.
 */
export async function routesOfKey(usable: Resource[]): Promise<GatewayRoute[]> {
  const byId = new Map(usable.map((r) => [r.id, r]));
  const routes: GatewayRoute[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await listRoutes({ limit: 100, cursor });
    for (const route of out.routes) {
      const resources = route.targets.flatMap((t) => byId.get(t.resource_id) ?? []);
      if (resources.length > 0) routes.push({ id: route.name, route, resources });
    }
    if (!out.nextCursor) break;
    cursor = out.nextCursor;
  }
  return routes;
}
