import type { ModelCapabilities } from '../../core/vocabulary';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { modelsOfKey, routesOfKey } from '../calls/resolve';
import { capabilitiesOf } from '../platforms/capabilities';

/**
 * GET /v1/models: OpenAI's list object, of the resources in service the key and its owner may call,
 * chat and embedding models alike, and of the routes with a target among them (`owned_by: "route"`).
 * Beside OpenAI's fields each says what it can do (`capabilities`: chat, stream, tools, json_output,
 * image_input, embeddings; a route what all those of its targets share), so a client can pick a model
 * for a feature instead of learning it from a 400.
 */
export async function listModels(key: ApiKey, user: User) {
  const models = (await modelsOfKey(key, user)).filter((m) => m.resource.status === 'InService');
  const routes = await routesOfKey(models.map((m) => m.resource));
  const entry = (id: string, created: string, ownedBy: string, can: ModelCapabilities) => ({
    id,
    object: 'model',
    created: Math.floor(Date.parse(created) / 1000),
    owned_by: ownedBy,
    capabilities: {
      chat: can.chat,
      stream: can.stream,
      tools: can.tools,
      json_output: can.jsonOutput,
      image_input: can.imageInput,
      embeddings: can.embeddings,
    },
  });
  return {
    object: 'list',
    data: [
      ...models.map(({ id, resource }) => entry(id, resource.created_at, resource.type, capabilitiesOf(resource))),
      ...routes.map(({ id, route, resources }) => entry(id, route.created_at, 'route', sharedCapabilities(resources.map(capabilitiesOf)))),
    ],
  };
}

/** What every one of these models can do. */
function sharedCapabilities(all: ModelCapabilities[]): ModelCapabilities {
  const names = Object.keys(all[0] as ModelCapabilities) as (keyof ModelCapabilities)[];
  return Object.fromEntries(names.map((n) => [n, all.every((c) => c[n])])) as unknown as ModelCapabilities;
}
