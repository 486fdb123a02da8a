import { endpoint } from '../../lib/http/endpoint';
import { listAuditEntries } from '../../tables/audit';
import { ListAuditQuery } from '../../generated/checks/admin';

/** GET /api/admin/audit (super_admin): admin actions, newest first, paginated. */
export const handler = endpoint({ auth: 'super_admin', query: ListAuditQuery }, async ({ query }) => {
  const { entries, nextCursor } = await listAuditEntries(query.limit, query.cursor);
  return { success: true, entries, count: entries.length, nextCursor };
});
