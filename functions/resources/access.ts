import { auditedEndpoint } from '../../lib/http/endpoint';
import { setAccess } from '../../lib/resources/access';
import { ResourceAccessBody, ResourcePath } from '../../generated/checks/resources';

/** PUT /api/resources/{resourceId}/access (admin, super_admin): who besides admins may use the resource. */
export const handler = auditedEndpoint(
  {
    auth: 'admin',
    path: ResourcePath,
    body: ResourceAccessBody,
    audit: {
      action: 'resource.access',
      target: ({ path, body }) =>
        `${path.resourceId} everyone=${body.everyone} users=${(body.user_ids ?? []).join(',')} teams=${(body.team_ids ?? []).join(',')}`,
    },
  },
  async ({ path, body, user }) => setAccess(path.resourceId, body, user),
);
