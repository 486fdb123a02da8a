import { Type } from '@sinclair/typebox';
import { login } from '../../lib/auth/login';
import { BadRequest } from '../../lib/http/errors';
import { endpoint } from '../../lib/http/endpoint';

// Both fields optional in the schema so that "missing" gets the spec's own message below.
const LoginBody = Type.Object(
  {
    username: Type.Optional(Type.String({ maxLength: 254, description: 'a username or an e-mail address' })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

/** POST /api/auth/login (spec 4.1) */
export const handler = endpoint({ auth: 'none', body: LoginBody, errorShape: 'message' }, async ({ body }) => {
  if (!body.username?.trim() || !body.password) throw new BadRequest('Username and password are required');
  const { token, user } = await login(body.username.trim(), body.password);
  return { success: true, message: 'Login successful', token, user };
});
