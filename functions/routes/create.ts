import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { createRoute } from '../../lib/routes/service';
import { CreateRouteBody } from '../../generated/checks/routes';

/** POST /api/routes (admin): a route over resources of one kind, callable by its name on /v1. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: CreateRouteBody, audit: { action: 'route.create', target: ({ body }) => body.name } },
  async ({ body, user }) => reply(201, await createRoute(user, body)),
);
