import { login } from '../../lib/auth/login';
import { BadRequest } from '../../lib/errors';
import { publicEndpoint } from '../../lib/http/public-endpoint';
import { LoginBody } from '../../generated/checks/auth';

/** POST /api/auth/login (docs/openapi.yaml login); failures are counted per account and per source address. */
export const handler = publicEndpoint({ body: LoginBody, errorShape: 'message' }, async ({ body, event }) => {
  if (!body.username?.trim() || !body.password) throw new BadRequest('Username and password are required');
  const { token, user } = await login({ login: body.username.trim(), password: body.password, sourceIp: event.requestContext?.http?.sourceIp });
  return { message: 'Login successful', token, user };
});
