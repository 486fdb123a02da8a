import { auditedEndpoint } from '../../lib/http/endpoint';
import { updateKey } from '../../lib/keys/service';
import { KeyPath, UpdateKeyBody } from '../../generated/checks/keys';

/** PATCH /api/keys/{keyId}: the caller's own key's name, budget, expiry or resource limit. */
export const handler = auditedEndpoint(
  { auth: 'user', path: KeyPath, body: UpdateKeyBody, audit: { action: 'key.update' } },
  async ({ path, body, user }) => updateKey(user, path.keyId, body),
);
