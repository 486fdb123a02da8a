import { config } from '../../core/config';

/**
 * How one may log in (GET /api/auth/config, public): the console asks before it draws its login page,
 * to show the password form (unless PASSWORD_LOGIN=false) and the "Log in with SSO" button (when
 * OIDC_ISSUER is set). A module of its own so that the public function bundles nothing else.
 */
export function authSettings() {
  return {
    password_login: config.auth.passwordLogin,
    sso: config.auth.oidc ? { enabled: true, login_url: '/api/auth/oidc/login' } : { enabled: false, login_url: null },
  };
}
