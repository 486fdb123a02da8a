import { authSettings } from '../../lib/auth/settings';
import { publicEndpoint } from '../../lib/http/public-endpoint';

/** GET /api/auth/config (public): how one may log in (password, single sign-on), for the console's login page. */
export const handler = publicEndpoint({}, async () => authSettings());
