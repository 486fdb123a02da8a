import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { createKey } from '../../lib/keys/service';
import { CreateKeyBody } from '../../generated/checks/keys';

/** POST /api/keys: a new API key of the caller; its secret is in this answer only. */
export const handler = auditedEndpoint(
  { auth: 'user', body: CreateKeyBody, audit: { action: 'key.create', target: ({ body }) => body.name } },
  async ({ body, user }) => reply(201, await createKey(user, body)),
);
