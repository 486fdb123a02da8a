import { endpoint } from '../../lib/http/endpoint';

/** GET /api/auth/validate (docs/openapi.yaml validate): the middleware has verified the token and read the user. */
export const handler = endpoint({ auth: 'user', errorShape: 'message' }, async ({ user }) => ({
  message: 'Token is valid',
  user,
}));
