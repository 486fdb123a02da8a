import { auditedEndpoint } from '../../lib/http/endpoint';
import { adoptOrphan } from '../../lib/orphans/service';
import { AdoptOrphanBody, OrphanPath } from '../../generated/checks/orphans';

/** POST /api/admin/orphans/{endpointName}/adopt (admin, super_admin): the endpoint becomes a tracked resource. */
export const handler = auditedEndpoint(
  { auth: 'admin', path: OrphanPath, body: AdoptOrphanBody, audit: { action: 'orphan.adopt' } },
  async ({ path, body, user }) => adoptOrphan(path.endpointName, body, user),
);
