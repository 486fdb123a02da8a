import { endpoint } from '../../lib/http/endpoint';

/**
 * POST /api/auth/logout (docs/openapi.yaml logout; README, Security): the server holds no session; the client drops its token.
 * POST /api/auth/logout-all (logout-all.ts) revokes every token of the user on the server.
 */
export const handler = endpoint({ auth: 'user' }, async () => ({
  message: 'Logged out. The server keeps no session: delete the stored token on the client (POST /api/auth/logout-all revokes every token).',
}));
