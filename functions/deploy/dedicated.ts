import { deployDedicated } from '../../lib/deploy/dedicated';
import { auditedEndpoint } from '../../lib/http/endpoint';
import { DeployDedicatedBody } from '../../generated/checks/deploy';

/** POST /api/deploy/dedicated (admin, super_admin): dry run by default; a real deploy returns at Creating. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: DeployDedicatedBody, platformFailures: 500, audit: { action: 'deploy.dedicated', target: ({ body }) => body.endpointName } },
  async ({ body, user }) => deployDedicated(body, user),
);
