import { keyEndpoint } from '../../lib/http/key-endpoint';
import { deleteResponse } from '../../lib/gateway/stored-responses';
import { ResponsePath } from '../../generated/checks/gateway';

/** DELETE /v1/responses/{id}: deletes a response this key stored; another key's is not found (404). */
export const handler = keyEndpoint({ path: ResponsePath }, async ({ key, path }) => deleteResponse(key, path.id));
