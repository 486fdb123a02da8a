import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { modelsOfKey } from '../calls/resolve';

/** GET /v1/models: OpenAI's list object, of the resources in service the key and its owner may call. */
export async function listModels(key: ApiKey, user: User) {
  const models = (await modelsOfKey(key, user)).filter((m) => m.resource.status === 'InService');
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
