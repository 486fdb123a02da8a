import { auditedEndpoint } from '../../lib/http/endpoint';
import { deleteOrphan } from '../../lib/orphans/service';
import { DeleteOrphanQuery, OrphanPath } from '../../generated/checks/orphans';

/** DELETE /api/admin/orphans/{endpointName}?confirm=true (admin, super_admin): deletes the endpoint on the platform. */
export const handler = auditedEndpoint(
  { auth: 'admin', path: OrphanPath, query: DeleteOrphanQuery, audit: { action: 'orphan.delete' } },
  async ({ path, query }) => deleteOrphan(path.endpointName, query.confirm === true),
);
