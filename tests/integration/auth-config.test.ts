import { handler as authConfig } from '../../functions/auth/config';
import { handler as oidcLogin } from '../../functions/auth/oidc-login';
import { handler as oidcCallback } from '../../functions/auth/oidc-callback';
import { call, type Handler } from '../helpers/invoke';

/** The default configuration: password login, no single sign-on. */
test('without OIDC_ISSUER the console is told: password form, no SSO button', async () => {
  const res = await call(authConfig as Handler, { path: '/api/auth/config' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: true, password_login: true, sso: { enabled: false, login_url: null } });
});

test('without OIDC_ISSUER both sign-on steps are 404 in the general shape, and set no cookie', async () => {
  for (const [handler, query] of [
    [oidcLogin, { nonce: 'n'.repeat(43) }],
    [oidcCallback, { code: 'c', state: 's' }],
  ] as const) {
    const res = await call(handler as Handler, { path: '/api/auth/oidc/x', query });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Single sign-on is not configured' });
    expect(res.headers['Set-Cookie']).toBeUndefined();
  }
});
