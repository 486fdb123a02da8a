import { deployDedicated } from '../../lib/deploy/dedicated';
import { endpoint } from '../../lib/http/endpoint';
import { DeployDedicatedBody } from '../../generated/checks/deploy';

/** POST /api/deploy/dedicated (admin, super_admin): dry run by default; a real deploy returns at Creating. */
export const handler = endpoint(
  { auth: 'admin', body: DeployDedicatedBody, audit: { action: 'deploy.dedicated', target: ({ body }) => body.endpointName } },
  async ({ body, user }) => deployDedicated(body, user),
);
