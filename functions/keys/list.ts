import { endpoint } from '../../lib/http/endpoint';
import { listKeys } from '../../lib/keys/service';
import { ListKeysQuery } from '../../generated/checks/keys';

/** GET /api/keys: the caller's keys (admins: every key with scope=all), never their secrets. */
export const handler = endpoint({ auth: 'user', query: ListKeysQuery }, async ({ query, user }) => listKeys(user, query));
