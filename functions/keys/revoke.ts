import { auditedEndpoint } from '../../lib/http/endpoint';
import { revokeKey } from '../../lib/keys/service';
import { KeyPath } from '../../generated/checks/keys';

/** DELETE /api/keys/{keyId}: revokes the key at once (the caller's own; admins any). */
export const handler = auditedEndpoint({ auth: 'user', path: KeyPath, audit: { action: 'key.revoke' } }, async ({ path, user }) =>
  revokeKey(user, path.keyId),
);
