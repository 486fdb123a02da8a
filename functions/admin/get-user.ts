import { endpoint } from '../../lib/http/endpoint';
import { getUser } from '../../lib/users/service';
import { UserPath } from '../../generated/checks/admin';

/** GET /api/admin/users/{userId} (super_admin) */
export const handler = endpoint({ auth: 'super_admin', path: UserPath }, async ({ path }) => ({
  user: await getUser(path.userId),
}));
