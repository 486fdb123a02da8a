import { endpoint } from '../../lib/http/endpoint';

/** POST /api/auth/logout (docs/openapi.yaml logout; README, Security): the server holds no session; the client drops its token. */
export const handler = endpoint({ auth: 'user' }, async () => ({
  success: true,
  message: 'Logged out. The server keeps no session: delete the stored token on the client.',
}));
