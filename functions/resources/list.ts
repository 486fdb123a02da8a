import { endpoint } from '../../lib/http/endpoint';
import { listResources } from '../../lib/resources/service';
import { ListResourcesQuery } from '../../generated/checks/resources';

/** GET /api/resources (any user): tracked resources, newest first, filterable by type and status. */
export const handler = endpoint({ auth: 'user', query: ListResourcesQuery }, async ({ query, user }) => listResources(query, user));
