import { endpoint } from '../../lib/http/endpoint';
import { listUsers } from '../../lib/users/service';
import { ListUsersQuery } from '../../generated/checks/admin';

/** GET /api/admin/users (super_admin), oldest first, paginated with a cursor. */
export const handler = endpoint({ auth: 'super_admin', query: ListUsersQuery }, async ({ query }) => {
  const { users, nextCursor } = await listUsers(query.limit, query.cursor);
  return { users, count: users.length, nextCursor };
});
