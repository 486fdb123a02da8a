import { handler as login } from '../../functions/auth/login';
import { handler as validate } from '../../functions/auth/validate';
import { handler as awsCredentials } from '../../functions/auth/aws-credentials';
import { handler as nvidiaCredentials } from '../../functions/auth/nvidia-credentials';
import { call, type Handler } from '../helpers/invoke';
import { captureLogs } from '../helpers/logs';
import { PASSWORD, makeUser } from '../helpers/users';

describe('structured logs', () => {
  test('carry route, user, role, status and latency, and never a password, token or secret', async () => {
    const { user, token } = await makeUser('admin');
    let issued = '';
    const logs = await captureLogs(async () => {
      const ok = await call(login as Handler, {
        method: 'POST',
        routeKey: 'POST /api/auth/login',
        body: { username: user.username, password: PASSWORD },
      });
      issued = ok.body.token;
      await call(login as Handler, { method: 'POST', body: { username: user.username, password: 'a-wrong-password-123' } });
      await call(validate as Handler, { routeKey: 'GET /api/auth/validate', token });
      await call(validate as Handler, { token: `${token}tampered` });
      await call(awsCredentials as Handler, { token });
      await call(nvidiaCredentials as Handler, { token });
    });
    const lines = logs
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => JSON.parse(l));
    const validateLine = lines.find((l) => l.route === 'GET /api/auth/validate' && l.status === 200);
    expect(validateLine).toMatchObject({ message: 'request', userId: user.id, role: 'admin', status: 200, latencyMs: expect.any(Number) });
    expect(lines.some((l) => l.route === 'POST /api/auth/login' && l.status === 200)).toBe(true);

    for (const secret of [
      PASSWORD,
      'a-wrong-password-123',
      token,
      issued,
      process.env.JWT_SECRET,
      process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY,
      process.env.HOSTED_API_KEY,
    ]) {
      expect(secret).toBeTruthy();
      expect(logs).not.toContain(secret as string);
    }
    expect(logs).not.toMatch(/\$2[aby]\$\d\d\$/); // no bcrypt hash
  });
});
