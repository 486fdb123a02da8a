import { keyEndpoint } from '../../lib/http/key-endpoint';
import { listModels } from '../../lib/gateway/models';

/** GET /v1/models: OpenAI's model list of the deployed resources the key and its owner may call. */
export const handler = keyEndpoint({}, async ({ key, user }) => listModels(key, user));
