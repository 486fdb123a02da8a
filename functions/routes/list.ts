import { endpoint } from '../../lib/http/endpoint';
import { listRoutesFor } from '../../lib/routes/service';
import { ListRoutesQuery } from '../../generated/checks/routes';

/** GET /api/routes: every route for admins; for users those they may call. */
export const handler = endpoint({ auth: 'user', query: ListRoutesQuery }, async ({ query, user }) => listRoutesFor(user, query));
