import { auditedEndpoint } from '../../lib/http/endpoint';
import { updateGuardrails } from '../../lib/resources/service';
import { ResourcePath, UpdateResourceBody } from '../../generated/checks/resources';

/** PATCH /api/resources/{resourceId} (admin, super_admin): a dedicated resource's idle timeout and monthly budget. */
export const handler = auditedEndpoint(
  { auth: 'admin', path: ResourcePath, body: UpdateResourceBody, audit: { action: 'resource.guardrails' } },
  async ({ path, body }) => updateGuardrails(path.resourceId, body),
);
