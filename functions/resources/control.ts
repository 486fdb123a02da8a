import { auditedEndpoint } from '../../lib/http/endpoint';
import { controlResource } from '../../lib/resources/service';
import { ControlBody, ResourcePath } from '../../generated/checks/resources';

/** POST /api/resources/{resourceId}/control (admin, super_admin): start, stop, restart, delete; returns at once. */
export const handler = auditedEndpoint(
  {
    auth: 'admin',
    path: ResourcePath,
    body: ControlBody,
    audit: { action: 'resource.control', target: ({ path, body }) => `${path.resourceId} ${body.action}` },
  },
  async ({ path, body }) => controlResource(path.resourceId, body.action, body.confirm === true),
);
