import type { ApiKey } from '../../tables/keys';
import { listResources, type Resource } from '../../tables/resources';
import { NotFound } from '../errors';

/**
 * The gateway's models: the deployed resources a key may call, named by their endpoint names.
 * Endpoint names are unique per platform, not across platforms; a name that two platforms share is
 * listed (and answered) only as `<platform>/<name>`, so a model id never means two resources and
 * never changes meaning when a second platform takes the name. An unambiguous name also answers as
 * `<platform>/<name>`.
 */

/** The service tracks tens of resources, not thousands; a bound keeps a runaway list from stalling calls. */
const MAX_PAGES = 10;

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

export interface GatewayModel {
  id: string;
  resource: Resource;
}

/** The resources this key may call, each with its model id. */
export async function modelsOfKey(key: Pick<ApiKey, 'resource_ids'>): Promise<GatewayModel[]> {
  const allowed = key.resource_ids ? new Set(key.resource_ids) : undefined;
  const resources = (await allResources()).filter((r) => !allowed || allowed.has(r.id));
  const platformsOf = new Map<string, Set<string>>();
  for (const r of resources) {
    const name = r.endpoint_name.toLowerCase();
    platformsOf.set(name, (platformsOf.get(name) ?? new Set()).add(r.type));
  }
  return resources.map((resource) => ({
    id:
      (platformsOf.get(resource.endpoint_name.toLowerCase())?.size ?? 0) > 1 ? `${resource.type}/${resource.endpoint_name}` : resource.endpoint_name,
    resource,
  }));
}

/** GET /v1/models: OpenAI's list object, of the resources in service. */
export async function listModels(key: ApiKey) {
  const models = (await modelsOfKey(key)).filter((m) => m.resource.status === 'InService');
  return {
    object: 'list',
    data: models.map(({ id, resource }) => ({
      id,
      object: 'model',
      created: Math.floor(Date.parse(resource.created_at) / 1000),
      owned_by: resource.type,
    })),
  };
}

/** The resource a completion names (its id, or `<platform>/<name>`); 404 model_not_found otherwise. */
export async function resolveModel(key: ApiKey, model: string): Promise<Resource> {
  const wanted = model.toLowerCase();
  const models = await modelsOfKey(key);
  const found =
    models.find((m) => m.id.toLowerCase() === wanted) ??
    models.find((m) => `${m.resource.type}/${m.resource.endpoint_name}`.toLowerCase() === wanted);
  if (!found) {
    throw new NotFound(`The model '${model}' does not exist or this API key may not use it (GET /v1/models lists them)`, {
      code: 'model_not_found',
      param: 'model',
    });
  }
  return found.resource;
}
