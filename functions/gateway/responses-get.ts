import { keyEndpoint } from '../../lib/http/key-endpoint';
import { getResponse } from '../../lib/gateway/stored-responses';
import { ResponsePath } from '../../generated/checks/gateway';

/** GET /v1/responses/{id}: a response this key stored, as it was answered; another key's is not found (404). */
export const handler = keyEndpoint({ path: ResponsePath }, async ({ key, path }) => getResponse(key, path.id));
