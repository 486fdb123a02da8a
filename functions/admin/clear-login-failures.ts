import { auditedEndpoint } from '../../lib/http/endpoint';
import { clearLoginFailures } from '../../lib/auth/login';
import { UserPath } from '../../generated/checks/admin';

/** DELETE /api/admin/users/{userId}/login-failures (super_admin): the account's failed logins forgotten, its waits lifted. */
export const handler = auditedEndpoint({ auth: 'super_admin', path: UserPath, audit: { action: 'user.login_failures.clear' } }, async ({ path }) =>
  clearLoginFailures(path.userId),
);
