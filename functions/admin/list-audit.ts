import { ListAuditQuery } from '../../generated/checks/admin';
import { auditLog } from '../../lib/audit/log';
import { endpoint } from '../../lib/http/endpoint';

/** GET /api/admin/audit (super_admin): admin actions, newest first, paginated. */
export const handler = endpoint({ auth: 'super_admin', query: ListAuditQuery }, async ({ query }) => auditLog(query.limit, query.cursor));
