import { endpoint } from '../../lib/http/endpoint';
import { describePlatforms } from '../../lib/platforms/registry';

/** GET /api/platforms (docs/openapi.yaml listPlatforms): what each platform is, from the registry; static, so no table read. */
export const handler = endpoint({ auth: 'user' }, async () => ({ platforms: describePlatforms() }));
