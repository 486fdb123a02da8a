import { endpoint } from '../../lib/http/endpoint';
import { resourceStatus } from '../../lib/resources/service';
import { ResourcePath } from '../../generated/checks/resources';

/** GET /api/resources/{resourceId}/status (any user): resource, metrics and costs (docs/openapi.yaml Resource). */
export const handler = endpoint({ auth: 'user', path: ResourcePath }, async ({ path, user }) => resourceStatus(path.resourceId, user));
