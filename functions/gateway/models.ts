import { keyEndpoint } from '../../lib/http/key-endpoint';
import { listModels } from '../../lib/gateway/models';

/** GET /v1/models: OpenAI's model list of the deployed resources the key may call. */
export const handler = keyEndpoint({}, async ({ key }) => listModels(key));
