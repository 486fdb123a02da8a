import { endpoint } from '../../lib/http/endpoint';
import { listOrphanEndpoints } from '../../lib/orphans/service';
import { ListOrphansQuery } from '../../generated/checks/orphans';

/** GET /api/admin/orphans (admin, super_admin): tagged endpoints no resource tracks, with what each costs an hour. */
export const handler = endpoint({ auth: 'admin', query: ListOrphansQuery }, async ({ query }) => listOrphanEndpoints(query.limit, query.cursor));
