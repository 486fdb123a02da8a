import { loginSettings } from '../../lib/signon/warnings';
import { optionalCaller } from '../../lib/http/middlewares/authenticate';
import { publicEndpoint } from '../../lib/http/public-endpoint';

/**
 * GET /api/auth/config (public): how one may log in (password, single sign-on), for the console's
 * login page; with an admin's token, also what sign-on noticed about its configuration.
 */
export const handler = publicEndpoint({}, async ({ event }) => loginSettings(await optionalCaller(event)));
