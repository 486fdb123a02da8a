import { SignJWT, UnsecuredJWT, generateKeyPair } from 'jose';
import { handler as login } from '../../functions/auth/login';
import { handler as validate } from '../../functions/auth/validate';
import { handler as logout } from '../../functions/auth/logout';
import { handler as updateUser } from '../../functions/admin/update-user';
import { call, type Handler } from '../helpers/invoke';
import { PASSWORD, makeUser } from '../helpers/users';
import { issueToken } from '../../lib/auth/tokens';

const post = (body: unknown, headers?: Record<string, string>) => call(login as Handler, { method: 'POST', path: '/api/auth/login', body, headers });
const check = (token?: string, headers?: Record<string, string>) => call(validate as Handler, { path: '/api/auth/validate', token, headers });
const secret = () => new TextEncoder().encode(process.env.JWT_SECRET);

describe('POST /api/auth/login', () => {
  test('a correct username and password return a 24-hour token with exactly the spec claims and the full user', async () => {
    const { user } = await makeUser('user');
    const res = await post({ username: user.username, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String), token: expect.any(String) });
    const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
    expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'role', 'userId', 'username']);
    expect(claims.exp - claims.iat).toBe(86_400);
    expect(claims).toMatchObject({ userId: user.id, username: user.username, role: 'user' });
    expect(Object.keys(res.body.user).sort()).toEqual(
      [
        'cloud_region',
        'created_at',
        'email',
        'id',
        'is_active',
        'last_login',
        'monthly_budget_usd',
        'name',
        'organization',
        'role',
        'updated_at',
        'username',
      ].sort(),
    );
    expect(res.body.user.last_login).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.raw).not.toContain('password');
  });

  test('the e-mail works as the login name, in any letter case', async () => {
    const { user } = await makeUser('user');
    const res = await post({ username: user.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
  });

  test('a wrong password is 401 with the message body shape', async () => {
    const { user } = await makeUser('user');
    const res = await post({ username: user.username, password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'Invalid username or password' });
  });

  test('an unknown user gets the same answer as a wrong password', async () => {
    const res = await post({ username: 'nobody-at-all', password: 'whatever-it-is' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'Invalid username or password' });
  });

  test.each([[{ password: 'x' }], [{ username: 'someone' }], [{ username: '', password: '' }], [{ username: '   ', password: 'x' }], [{}]])(
    'missing username or password (%j) is 400 "Username and password are required"',
    async (body) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, message: 'Username and password are required' });
    },
  );

  test('an empty body is 400, not a crash', async () => {
    const res = await call(login as Handler, { method: 'POST', path: '/api/auth/login' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Username and password are required');
  });

  test('malformed JSON is 400 with a plain reason', async () => {
    const res = await post('{"username": "a", ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: 'Malformed JSON in request body' });
  });

  test.each(['[1,2]', '"text"', '42', 'null'])('a JSON body that is not an object (%s) is 400', async (body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Request body must be a JSON object');
  });

  test('a wrong content type is 415', async () => {
    const res = await post('username=a&password=b', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.body.message).toBe('Content-Type must be application/json');
  });

  test('a wrong type for a field is 400 naming the field', async () => {
    const res = await post({ username: 42, password: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("'username'");
  });

  test('an unknown field is 400 naming it', async () => {
    const res = await post({ username: 'a', password: 'b', role: 'super_admin' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Unknown field 'role'");
  });

  test('a body over the size limit is 413 before parsing', async () => {
    const res = await post(`{"username":"${'a'.repeat(200_000)}"`);
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
  });

  test('a deactivated account cannot log in even with the right password', async () => {
    const { user } = await makeUser('user');
    const { token } = await makeUser('super_admin');
    await call(updateUser as Handler, { method: 'PATCH', pathParameters: { userId: user.id }, token, body: { is_active: false } });
    const res = await post({ username: user.username, password: PASSWORD });
    expect(res.status).toBe(401);
  });

  test('the login updates last_login on the stored user', async () => {
    const { user, token } = await makeUser('user');
    expect(user.last_login).toBeNull();
    await post({ username: user.username, password: PASSWORD });
    const res = await check(token);
    expect(res.body.user.last_login).toEqual(expect.any(String));
  });
});

// The login throttle has a file of its own: tests/integration/login-throttle.test.ts.

describe('GET /api/auth/validate', () => {
  test('a valid token returns the user as stored', async () => {
    const { user, token } = await makeUser('admin');
    const res = await check(token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: expect.any(String),
      user: { id: user.id, username: user.username, email: user.email, name: user.name, role: 'admin' },
    });
    expect(res.body.user).not.toHaveProperty('password_hash');
  });

  test('no token is 401 "No token provided"', async () => {
    const res = await check();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'No token provided' });
  });

  test('a bare token without the Bearer prefix is 401 whose details say the prefix is required', async () => {
    const { token } = await makeUser('user');
    const res = await check(undefined, { authorization: token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      success: false,
      message: 'Invalid or expired token',
      details: "The Authorization header must be 'Bearer <token>': the Bearer prefix is required",
    });
  });

  const attacks: [string, () => Promise<string>][] = [
    ['alg none', async () => new UnsecuredJWT({ userId: 'x', username: 'x', role: 'super_admin' }).setIssuedAt().setExpirationTime('24h').encode()],
    [
      'HS256 signed with another secret',
      async () =>
        new SignJWT({ userId: 'x', username: 'x', role: 'user' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('24h')
          .sign(new TextEncoder().encode('another-secret-that-is-long-enough-to-be-used')),
    ],
    [
      'HS512 with the right secret',
      async () =>
        new SignJWT({ userId: 'x', username: 'x', role: 'user' })
          .setProtectedHeader({ alg: 'HS512' })
          .setIssuedAt()
          .setExpirationTime('24h')
          .sign(secret()),
    ],
    [
      'RS256',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT({ userId: 'x', username: 'x', role: 'user' })
          .setProtectedHeader({ alg: 'RS256' })
          .setIssuedAt()
          .setExpirationTime('24h')
          .sign(privateKey);
      },
    ],
    [
      'expired by one second',
      async () => {
        const iat = Math.floor(Date.now() / 1000) - 86_401;
        return new SignJWT({ userId: 'x', username: 'x', role: 'user' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt(iat)
          .setExpirationTime(iat + 86_400)
          .sign(secret());
      },
    ],
    [
      'exp missing',
      async () => new SignJWT({ userId: 'x', username: 'x', role: 'user' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(secret()),
    ],
    [
      'a lifetime longer than 24 h',
      async () =>
        new SignJWT({ userId: 'x', username: 'x', role: 'user' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('48h')
          .sign(secret()),
    ],
    ['garbage', async () => 'not.a.token'],
  ];

  test.each(attacks)('a token with %s is 401', async (_name, make) => {
    const res = await check(await make());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'Invalid or expired token' });
  });

  test('a token whose payload was tampered with (role raised) is 401', async () => {
    const { token } = await makeUser('user');
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p as string, 'base64url').toString());
    payload.role = 'super_admin';
    const forged = [h, Buffer.from(JSON.stringify(payload)).toString('base64url'), s].join('.');
    expect((await check(forged)).status).toBe(401);
  });

  test('a validly signed token for a user that does not exist is 401', async () => {
    const token = await issueToken({ id: '6b0a3c1e-1111-4222-8333-944445555666', username: 'ghost', role: 'admin' });
    expect((await check(token)).status).toBe(401);
  });

  test('a deactivated user is rejected at once, with a token issued before', async () => {
    const { user, token } = await makeUser('user');
    const { token: adminToken } = await makeUser('super_admin');
    expect((await check(token)).status).toBe(200);
    await call(updateUser as Handler, { method: 'PATCH', pathParameters: { userId: user.id }, token: adminToken, body: { is_active: false } });
    const res = await check(token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'Account is deactivated' });
  });
});

describe('POST /api/auth/logout', () => {
  test('logout answers success and needs a token', async () => {
    const { token } = await makeUser('user');
    expect((await call(logout as Handler, { method: 'POST', token })).body).toMatchObject({ success: true, message: expect.any(String) });
    const anonymous = await call(logout as Handler, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, error: 'Authentication required', details: 'No token provided' });
  });
});
