import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { modelsOfKey } from '../calls/resolve';
import { capabilitiesOf } from '../platforms/capabilities';

/**
 * GET /v1/models: OpenAI's list object, of the resources in service the key and its owner may call,
 * chat and embedding models alike. Beside OpenAI's fields each says what it can do (`capabilities`:
 * chat, stream, tools, json_output, image_input, embeddings), so a client can pick a model for a
 * feature instead of learning it from a 400.
 */
export async function listModels(key: ApiKey, user: User) {
  const models = (await modelsOfKey(key, user)).filter((m) => m.resource.status === 'InService');
  return {
    object: 'list',
    data: models.map(({ id, resource }) => {
      const can = capabilitiesOf(resource);
      return {
        id,
        object: 'model',
        created: Math.floor(Date.parse(resource.created_at) / 1000),
        owned_by: resource.type,
        capabilities: {
          chat: can.chat,
          stream: can.stream,
          tools: can.tools,
          json_output: can.jsonOutput,
          image_input: can.imageInput,
          embeddings: can.embeddings,
        },
      };
    }),
  };
}
