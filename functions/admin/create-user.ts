import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { createUser } from '../../lib/users/service';
import { CreateUserBody } from '../../generated/checks/admin';

/** POST /api/admin/users (super_admin) */
export const handler = auditedEndpoint(
  { auth: 'super_admin', body: CreateUserBody, audit: { action: 'user.create', target: ({ body }) => body.username } },
  async ({ body }) => reply(201, { user: await createUser(body) }),
);
