import { auditedEndpoint } from '../../lib/http/endpoint';
import { deleteRoute } from '../../lib/routes/service';
import { RoutePath } from '../../generated/checks/routes';

/** DELETE /api/routes/{routeId} (admin): the route and its name; its resources are untouched. */
export const handler = auditedEndpoint({ auth: 'admin', path: RoutePath, audit: { action: 'route.delete' } }, async ({ path, user }) =>
  deleteRoute(user, path.routeId),
);
