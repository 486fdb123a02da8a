import { hostedCredentials } from '../../lib/auth/credentials';
import { auditedEndpoint } from '../../lib/http/endpoint';

/** GET /api/auth/nvidia-credentials (admin, super_admin): the masked hosted API key and example calls. */
export const handler = auditedEndpoint({ auth: 'admin', audit: { action: 'credentials.read.hosted' } }, async () => ({
  credentials: hostedCredentials(),
}));
