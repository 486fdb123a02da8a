import { PLATFORMS, type PlatformName } from '../../core/vocabulary';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { getResource, listResources, resourcesNamed, type NameHolder, type Resource } from '../../tables/resources';
import { NotFound } from '../errors';
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
 */

const HOLDERS_KEPT = 5_000;
const lastHolder = new Map<string, string>();

function remember(wanted: string, id: string): void {
  lastHolder.delete(wanted);
  if (lastHolder.size >= HOLDERS_KEPT) lastHolder.delete(lastHolder.keys().next().value as string);
  lastHolder.set(wanted, id);
}

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

/** What a model name points at: the resources holding it, and the one the container expected, read beside them. */
export interface NameLookup {
  wanted: string;
  holders: NameHolder[];
  expected?: Resource;
}

/**
 * The resources holding a model name (one round trip). It needs no key, so it runs beside the key's
 * lookup (lib/http/key-endpoint.ts prefetch); resolveModel then decides with the key.
 */
export async function lookUpModel(model: string): Promise<NameLookup> {
  const { name, types } = parseModelName(model);
  const wanted = `${types.length === 1 ? types[0] : '*'}/${name.toLowerCase()}`;
  const { holders, resource } = await resourcesNamed(name, types, lastHolder.get(wanted));
  return { wanted, holders, expected: resource };
}

/** Whether a key may call a resource (its resource_ids, when it has any). */
const mayUseId = (key: Pick<ApiKey, 'resource_ids'>, id: string) => !key.resource_ids || key.resource_ids.includes(id);

/**
 * The resource a call names, for this key and its owner; 404 model_not_found when there is none they
 * may use. Among the resources the key may use, a bare name two platforms share means neither: it must
 * be asked for as <platform>/<name> (as GET /v1/models lists it). A resource the owner may not call
 * (lib/calls/access.ts) answers as OpenAI answers a model the key cannot use: 404 model_not_found,
 * the same as a name nobody holds, so a caller learns nothing of resources they may not use.
 */
export async function resolveModel(key: ApiKey, user: User, model: string, prefetched?: Promise<NameLookup>): Promise<Resource> {
  const { wanted, holders, expected } = await (prefetched ?? lookUpModel(model));
  const usable = holders.filter((h) => mayUseId(key, h.resourceId));
  if (usable.length !== 1) throw modelNotFound(model);
  const { resourceId } = usable[0] as NameHolder;
  const resource = expected?.id === resourceId ? expected : await getResource(resourceId);
  if (!resource) throw modelNotFound(model);
  remember(wanted, resource.id);
  if (!(await mayCall(user, resource))) throw modelNotFound(model);
  return resource;
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
