import { cloudCredentials } from '../../lib/auth/credentials';
import { auditedEndpoint } from '../../lib/http/endpoint';

/** GET /api/auth/aws-credentials (admin, super_admin): masked cloud credentials and example calls. */
export const handler = auditedEndpoint({ auth: 'admin', audit: { action: 'credentials.read.cloud' } }, async () => ({
  credentials: cloudCredentials(),
}));
