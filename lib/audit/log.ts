import { listAuditEntries } from '../../tables/audit';

/** GET /api/admin/audit: admin actions, newest first, one page. */
export async function auditLog(limit: number, cursor?: string) {
  const { entries, nextCursor } = await listAuditEntries(limit, cursor);
  return { entries, count: entries.length, nextCursor };
}
