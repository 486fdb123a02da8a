/**
 * PASSWORD_LOGIN=false: single sign-on is the only way in. Config is read once at import, so the
 * environment is set first and the handlers imported after.
 */
import { call, type Handler } from '../helpers/invoke';
import type { makeUser as MakeUser } from '../helpers/users';

const savedEnv = { ...process.env };
let login: Handler;
let authConfig: Handler;
let makeUser: typeof MakeUser;

beforeAll(async () => {
  Object.assign(process.env, {
    PASSWORD_LOGIN: 'false',
    OIDC_ISSUER: process.env.TEST_OIDC_ISSUER,
    OIDC_CLIENT_ID: process.env.TEST_OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: process.env.TEST_OIDC_CLIENT_SECRET,
    OIDC_REDIRECT_URL: process.env.TEST_OIDC_REDIRECT_URL,
  });
  login = (await import('../../functions/auth/login')).handler as Handler;
  authConfig = (await import('../../functions/auth/config')).handler as Handler;
  makeUser = (await import('../helpers/users')).makeUser;
});

afterAll(() => {
  process.env = savedEnv;
});

test('a password login, even with the right password, is a 403 that says to use single sign-on', async () => {
  const { user } = await makeUser('super_admin', { password: 'right-password-1' });
  const res = await call(login, { method: 'POST', body: { username: user.username, password: 'right-password-1' } });
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ success: false, message: 'Password login is turned off: log in with single sign-on' });
});

test('the console is told so: no password form, the SSO button', async () => {
  const res = await call(authConfig, { path: '/api/auth/config' });
  expect(res.body).toEqual({ success: true, password_login: false, sso: { enabled: true, login_url: '/api/auth/oidc/login' } });
});
