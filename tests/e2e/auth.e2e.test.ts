import { randomUUID } from 'node:crypto';
import { http, loginAsAdmin } from './http';

describe('foundation over HTTP (serverless-offline)', () => {
  test('the documented flow: login, validate, create a user, 403 for them on credentials, deactivate, 401', async () => {
    const admin = await loginAsAdmin();
    const validated = await http('GET', '/api/auth/validate', { token: admin });
    expect(validated.status).toBe(200);
    expect(validated.body.user).toMatchObject({ username: process.env.E2E_ADMIN_USERNAME, role: 'super_admin' });

    const tag = randomUUID().slice(0, 8);
    const created = await http('POST', '/api/admin/users', {
      token: admin,
      body: { username: `e2e-${tag}`, email: `e2e-${tag}@example.com`, name: 'E2E User', role: 'user', password: 'e2e-password-1' },
    });
    expect(created.status).toBe(201);

    const login = await http('POST', '/api/auth/login', { body: { username: `e2e-${tag}`, password: 'e2e-password-1' } });
    expect(login.status).toBe(200);
    const userToken = login.body.token as string;

    for (const path of ['/api/auth/aws-credentials', '/api/auth/nvidia-credentials']) {
      const res = await http('GET', path, { token: userToken });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: 'Admin privileges required' });
    }

    const deactivated = await http('PATCH', `/api/admin/users/${created.body.user.id}`, { token: admin, body: { is_active: false } });
    expect(deactivated.status).toBe(200);
    const rejected = await http('GET', '/api/auth/validate', { token: userToken });
    expect(rejected.status).toBe(401);
    expect(rejected.body.success).toBe(false);
  });

  test('an unknown route is 404 in the spec error shape', async () => {
    const res = await http('GET', '/api/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'Route not found' });
  });

  test('malformed JSON over HTTP is 400 in the message shape for login', async () => {
    const res = await http('POST', '/api/auth/login', { body: '{"username":' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: 'Malformed JSON in request body' });
  });

  test('responses carry security headers and no stack traces', async () => {
    const res = await http('GET', '/api/auth/validate', { token: 'nonsense' });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // Over plain http (as here) no HSTS: API Gateway's https answers carry it (tests/unit/security-headers.test.ts).
    expect(res.headers.get('strict-transport-security')).toBeNull();
    expect(res.headers.get('reporting-endpoints')).toBeNull();
    expect(res.raw).not.toMatch(/at .+\.(ts|js|mjs):\d+/);
  });

  test('credentials for an admin are masked over HTTP too', async () => {
    const admin = await loginAsAdmin();
    const res = await http('GET', '/api/auth/aws-credentials', { token: admin });
    expect(res.status).toBe(200);
    expect(res.raw).not.toContain('test-emulator-secret-access-key-0001');
    // The functions name the key's SSM parameter (as a deploy does: local/runtime.ts secretsAsParameters), so nothing of it is shown.
    expect(res.body.credentials.secretAccessKey).toBe('****************');
  });
});
