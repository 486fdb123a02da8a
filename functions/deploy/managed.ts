import { deployManaged } from '../../lib/deploy/managed';
import { auditedEndpoint } from '../../lib/http/endpoint';
import { DeployManagedBody } from '../../generated/checks/deploy';

/** POST /api/deploy/managed (admin, super_admin): dry run by default; nothing is provisioned. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: DeployManagedBody, audit: { action: 'deploy.managed', target: ({ body }) => body.endpointName } },
  async ({ body, user }) => deployManaged(body, user),
);
