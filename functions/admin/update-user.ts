import { auditedEndpoint } from '../../lib/http/endpoint';
import { updateUser, withAlertThresholds } from '../../lib/users/service';
import { UpdateUserBody, UserPath } from '../../generated/checks/admin';

/** PATCH /api/admin/users/{userId} (super_admin); is_active false deactivates at once. */
export const handler = auditedEndpoint(
  { auth: 'super_admin', path: UserPath, body: UpdateUserBody, audit: { action: 'user.update' } },
  async ({ path, body }) => ({
    user: (await withAlertThresholds([await updateUser(path.userId, body)]))[0],
  }),
);
