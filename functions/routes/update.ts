import { auditedEndpoint } from '../../lib/http/endpoint';
import { updateRoute } from '../../lib/routes/service';
import { RoutePath, UpdateRouteBody } from '../../generated/checks/routes';

/** PATCH /api/routes/{routeId} (admin): its name, strategy, targets, cooldown or retry_on. */
export const handler = auditedEndpoint(
  { auth: 'admin', path: RoutePath, body: UpdateRouteBody, audit: { action: 'route.update' } },
  async ({ path, body, user }) => updateRoute(user, path.routeId, body),
);
