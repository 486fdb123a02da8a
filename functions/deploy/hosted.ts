import { deployHosted } from '../../lib/deploy/hosted';
import { auditedEndpoint } from '../../lib/http/endpoint';
import { DeployHostedBody } from '../../generated/checks/deploy';

/** POST /api/deploy/hosted (admin, super_admin): connectivity check; registers the model unless dryRun. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: DeployHostedBody, audit: { action: 'deploy.hosted', target: ({ body }) => body.endpointName ?? body.modelId } },
  async ({ body, user }) => deployHosted(body, user),
);
