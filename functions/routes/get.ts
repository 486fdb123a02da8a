import { endpoint } from '../../lib/http/endpoint';
import { getRouteFor } from '../../lib/routes/service';
import { RoutePath } from '../../generated/checks/routes';

/** GET /api/routes/{routeId}: the route with its targets' status and cooldowns (users: one they may call). */
export const handler = endpoint({ auth: 'user', path: RoutePath }, async ({ path, user }) => getRouteFor(user, path.routeId));
