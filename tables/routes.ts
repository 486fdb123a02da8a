import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PLATFORMS, type PlatformName } from '../core/vocabulary';
import { TABLE, db, getItems, queryIndexPage, type ItemKey } from './client';
import { nameGuardKey } from './partitions';
import { attribute, defineEntity, type RecordOf } from './entity';
import { DataError } from './errors';
import { resourceFromItem, resourceKey, type Resource } from './resources';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';

/**
 * Routes: a name /v1 callers give as `model` that stands for several resources, tried in priority
 * order or by weight, falling over on the failures it lists (lib/routes).
 *
 *   PK ROUTE#<id>                      SK META     the route, with its targets' cooldowns
 *                                                  GSI1 ROUTES / <lower name>#<id>   (admins' list, by name)
 *   PK RESNAME#<type>#<lower name>     SK UNIQUE   its name guard on EVERY platform, `routeId` (no resourceId)
 *
 * The name guards are the resources' own (tables/partitions.ts nameGuardKey): a route takes its name on
 * every platform in the transaction that writes it, so a route and a resource (or two routes) never
 * share a name whichever is written first, and a /v1 call finds a route with the same BatchGet of
 * guards that finds a resource: a direct call reads nothing more because routes exist.
 *
 * Cooldowns live on the targets' resource items, one attribute per route (`cooldown#<route id>`:
 * until, why), so the call reads them with the resources it reads anyway, and every function instance
 * sees the same ones. A resource item is written by a route only when the target fails (a conditional
 * UpdateItem that only moves that route's cooldown later), so callers never queue behind one another
 * on it. A cooldown belongs to one route: another route over the same resource, and a direct call to
 * it, are not refused by it (lib/calls/attempts.ts). The route item holds the definition alone, which
 * a warm container keeps in memory for a few seconds (lib/calls/resolve.ts), so a call through a route
 * on the happy path does not read it.
 */

/** Why a target failed, as `retry_on` names it. */
export const ROUTE_FAILURES = ['throttled', 'unavailable', 'timeout', 'not_in_service', 'context_window'] as const;
export type RouteFailure = (typeof ROUTE_FAILURES)[number];

export type RouteStrategy = 'priority' | 'weighted';

export interface RouteTarget {
  resource_id: string;
  weight: number;
  /** The resource's name and platform when the target was set: what a target whose resource was deleted still shows. */
  endpoint_name: string;
  type: PlatformName;
}

export interface Cooldown {
  /** Epoch ms. */
  until: number;
  reason: RouteFailure;
}

const ROUTE = defineEntity({
  id: attribute.as<string>(),
  name: attribute.as<string>(),
  strategy: attribute.as<RouteStrategy>(),
  targets: attribute.read((stored) => ((stored as RouteTarget[] | undefined) ?? []).map((t) => ({ ...t, weight: Number(t.weight) }))),
  cooldown_seconds: attribute.number(),
  retry_on: attribute.as<RouteFailure[]>(),
  created_at: attribute.as<string>(),
  updated_at: attribute.as<string>(),
  created_by: attribute.as<string>(),
});

export type Route = RecordOf<typeof ROUTE>;

/** A route target's resource, with the cooldowns routes set on its item (by route id; a past `until` is no cooldown). */
export interface TargetResource {
  resource: Resource;
  cooldowns: Record<string, Cooldown>;
}

const routeKey = (id: string): ItemKey => ({ PK: `ROUTE#${id}`, SK: 'META' });
const LIST_PARTITION = 'ROUTES';
const routeFromItem = (item: Record<string, unknown>): Route => ROUTE.read(item);

/** The attribute of a target's resource item that holds one route's cooldown of it. */
const COOLDOWN = 'cooldown#';

function targetFromItem(item: Record<string, unknown>): TargetResource {
  const cooldowns: Record<string, Cooldown> = {};
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(COOLDOWN)) continue;
    const c = value as { until: unknown; reason: RouteFailure };
    cooldowns[name.slice(COOLDOWN.length)] = { until: Number(c.until), reason: c.reason };
  }
  return { resource: resourceFromItem(item), cooldowns };
}

/** This route's cooldowns of its targets, by resource id, from their resource items. */
export function cooldownsOf(route: Pick<Route, 'id'>, targets: Map<string, TargetResource>): Record<string, Cooldown> {
  const cooldowns: Record<string, Cooldown> = {};
  for (const [id, target] of targets) {
    const cooldown = target.cooldowns[route.id];
    if (cooldown) cooldowns[id] = cooldown;
  }
  return cooldowns;
}

const routeNameTaken = (name: string) =>
  new DataError('NameTaken', `The name "${name}" is taken by a resource or another route`, 'Routes share the names /v1 accepts as model');

const guardPuts = (route: Pick<Route, 'id' | 'name' | 'created_at'>): TransactItems =>
  PLATFORMS.map((type) => ({
    Put: {
      TableName: TABLE,
      Item: { ...nameGuardKey(type, route.name), routeId: route.id, created_at: route.created_at },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  }));

const guardDeletes = (route: Pick<Route, 'id' | 'name'>): TransactItems =>
  PLATFORMS.map((type) => ({
    Delete: {
      TableName: TABLE,
      Key: nameGuardKey(type, route.name),
      ConditionExpression: 'attribute_not_exists(PK) OR routeId = :id',
      ExpressionAttributeValues: { ':id': route.id },
    },
  }));

const listKeys = (route: Pick<Route, 'id' | 'name'>) => ({ GSI1PK: LIST_PARTITION, GSI1SK: `${route.name.toLowerCase()}#${route.id}` });

/** Writes a new route and takes its name on every platform, all or nothing: NameTaken when anything holds the name. */
export async function insertRoute(route: Route): Promise<void> {
  const items: TransactItems = [
    {
      Put: {
        TableName: TABLE,
        Item: { ...routeKey(route.id), ...listKeys(route), entity: 'route', ...route },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    ...guardPuts(route),
  ];
  try {
    await transactWrite(items);
  } catch (err) {
    if (cancellationReasons(err)?.includes('ConditionalCheckFailed')) throw routeNameTaken(route.name);
    throw err;
  }
}

/**
 * Replaces a route's definition (its targets' cooldowns stay on their items), conditional on the
 * version read (`before.updated_at`: StaleWrite when another change came first). A new name is taken
 * and the old one freed in the same transaction.
 */
export async function replaceRoute(before: Route, after: Route): Promise<void> {
  const { id: _id, ...fields } = after;
  const names = Object.keys(fields);
  const update: TransactItems[number] = {
    Update: {
      TableName: TABLE,
      Key: routeKey(before.id),
      UpdateExpression: `SET ${[...names, 'GSI1SK'].map((n) => `#${n} = :${n}`).join(', ')}`,
      ConditionExpression: 'updated_at = :was',
      ExpressionAttributeNames: Object.fromEntries([...names, 'GSI1SK'].map((n) => [`#${n}`, n])),
      ExpressionAttributeValues: {
        ...Object.fromEntries(Object.entries(fields).map(([n, v]) => [`:${n}`, v])),
        ':GSI1SK': listKeys(after).GSI1SK,
        ':was': before.updated_at,
      },
    },
  };
  const renamed = before.name.toLowerCase() !== after.name.toLowerCase();
  const items: TransactItems = renamed ? [update, ...guardDeletes(before), ...guardPuts(after)] : [update];
  try {
    await transactWrite(items);
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (reasons?.[0] === 'ConditionalCheckFailed') throw new DataError('StaleWrite', 'The route was changed meanwhile', 'Read it again and retry');
    if (reasons?.includes('ConditionalCheckFailed')) throw routeNameTaken(after.name);
    throw err;
  }
}

/** Removes a route and frees its name. false when it was gone already. */
export async function removeRoute(route: Route): Promise<boolean> {
  try {
    await transactWrite([
      { Delete: { TableName: TABLE, Key: routeKey(route.id), ConditionExpression: 'attribute_exists(PK)' } },
      ...guardDeletes(route),
    ]);
    return true;
  } catch (err) {
    if (cancellationReasons(err)?.[0] === 'ConditionalCheckFailed') return false;
    throw err;
  }
}

export async function getRoute(id: string): Promise<Route | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: routeKey(id), ConsistentRead: true }));
  return Item ? routeFromItem(Item) : undefined;
}

/** Routes by id, in one BatchGet (absent ids are left out). */
export async function getRoutes(ids: string[]): Promise<Map<string, Route>> {
  const items = await getItems(ids.map(routeKey), false);
  return new Map(ids.flatMap((id) => (items(routeKey(id)) ? [[id, routeFromItem(items(routeKey(id)) as Record<string, unknown>)] as const] : [])));
}

/** A page of routes in name order (admins' list: a Query of one partition, written only by admins). */
export async function listRoutes(options: { limit: number; cursor?: string }): Promise<{ routes: Route[]; nextCursor: string | null }> {
  const page = await queryIndexPage(LIST_PARTITION, { forward: true, limit: options.limit, cursor: options.cursor });
  return { routes: page.items.map(routeFromItem), nextCursor: page.nextCursor };
}

/**
 * A target cools down until `cooldown.until` for every caller of the route: one UpdateItem of the
 * target's resource item that only ever moves this route's cooldown later (concurrent failures of one
 * target write once in effect; a later one wins). Nothing is written when the resource is gone.
 */
export async function coolDown(routeId: string, resourceId: string, cooldown: Cooldown): Promise<void> {
  await db
    .send(
      new UpdateCommand({
        TableName: TABLE,
        Key: resourceKey(resourceId),
        UpdateExpression: 'SET #c = :c',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#c) OR #c.#until < :until)',
        ExpressionAttributeNames: { '#c': `${COOLDOWN}${routeId}`, '#until': 'until' },
        ExpressionAttributeValues: { ':c': cooldown, ':until': cooldown.until },
      }),
    )
    .catch((err: { name?: string }) => {
      if (err?.name !== 'ConditionalCheckFailedException') throw err;
    });
}

/** The resources of these ids that exist, by id: one BatchGet. */
export async function resourcesById(ids: string[]): Promise<Map<string, Resource>> {
  return new Map([...(await targetResources(ids))].map(([id, t]) => [id, t.resource]));
}

/** The resources of these ids that exist, with the cooldowns routes set on them, by id: one BatchGet (eventually consistent). */
export async function targetResources(ids: string[]): Promise<Map<string, TargetResource>> {
  if (ids.length === 0) return new Map();
  const items = await getItems(ids.map(resourceKey), false);
  return new Map(ids.flatMap((id) => (items(resourceKey(id)) ? [[id, targetFromItem(items(resourceKey(id)) as Record<string, unknown>)]] : [])));
}

// ------------------------------------------------------------------------- a /v1 model name's lookup

/** What holds a name on one platform: a resource, or (on every platform at once) a route. */
export type NameHolder = { type: PlatformName; resourceId: string } | { type: PlatformName; routeId: string };

/** What the container last found behind a name, read again beside the guards. */
export type ExpectedHolder = { resourceId: string } | { routeId: string; targetIds: string[] };

export interface NamedModel {
  holders: NameHolder[];
  /** The expected resource, if a guard still points at it. */
  resource?: Resource;
  /** The expected route, if its guards still point at it, with those of its targets' resources that were read. */
  route?: Route;
  targets?: Map<string, TargetResource>;
}

/**
 * The holders of a model name on the platforms given, in one round trip whatever the number of
 * resources and routes: one eventually consistent BatchGet of the name guards with, when the caller
 * already knows what held the name last, that item beside them: a resource, or a route and its
 * targets' resources (with the route's cooldowns on them).
 * What the guards no longer point at is not returned; the caller reads the holder then.
 */
export async function modelNamed(name: string, types: readonly PlatformName[], expected?: ExpectedHolder): Promise<NamedModel> {
  const keys: ItemKey[] = types.map((type) => nameGuardKey(type, name));
  if (expected && 'resourceId' in expected) keys.push(resourceKey(expected.resourceId));
  if (expected && 'routeId' in expected) keys.push(routeKey(expected.routeId), ...expected.targetIds.map(resourceKey));
  const items = await getItems(keys, false);
  const holders = types.flatMap((type): NameHolder[] => {
    const guard = items(nameGuardKey(type, name));
    if (typeof guard?.resourceId === 'string') return [{ type, resourceId: guard.resourceId }];
    if (typeof guard?.routeId === 'string') return [{ type, routeId: guard.routeId }];
    return [];
  });
  if (expected && 'resourceId' in expected) {
    const item = items(resourceKey(expected.resourceId));
    const held = holders.some((h) => 'resourceId' in h && h.resourceId === expected.resourceId);
    return { holders, ...(item && held && { resource: resourceFromItem(item) }) };
  }
  if (expected && 'routeId' in expected) {
    const item = items(routeKey(expected.routeId));
    if (!item || !holders.some((h) => 'routeId' in h && h.routeId === expected.routeId)) return { holders };
    const targets = new Map<string, TargetResource>();
    for (const id of expected.targetIds) {
      const resource = items(resourceKey(id));
      if (resource) targets.set(id, targetFromItem(resource));
    }
    return { holders, route: routeFromItem(item), targets };
  }
  return { holders };
}
