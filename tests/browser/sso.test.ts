/**
 * Single sign-on in the browser: the console's "Log in with SSO" button, the loopback OpenID
 * provider's own login and consent pages (local/oidc-provider.ts, through the test runtime), and the
 * landing back in the console with the role the person's groups map to; and the console taking a
 * hand-off only from the sign-in it started (the nonce it stored), never from a forged link.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { CONSOLE, api, apiToken, browserPerFile, ADMIN } from './helpers';
import { providerControl } from '../helpers/oidc';

const b = browserPerFile();
const ISSUER = () => process.env.E2E_OIDC_ISSUER as string;

async function account(groups: string[]) {
  const sub = `br-${randomUUID().slice(0, 8)}`;
  await providerControl(ISSUER(), 'accounts', {
    sub,
    email: `${sub}@example.test`,
    email_verified: true,
    preferred_username: sub,
    name: `Browser ${sub}`,
    groups,
  });
  return sub;
}

/** At the provider: its login page (any password), then its consent page. */
async function signInAtProvider(page: Page, login: string) {
  await page.waitForURL((url) => url.href.startsWith(ISSUER()));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any-password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** A new person with these groups, signed in through the console's button, as far as the signed-in console. */
async function signInThroughConsole(page: Page, groups: string[]): Promise<string> {
  const sub = await account(groups);
  await page.goto(`${CONSOLE()}/`);
  await page.getByRole('link', { name: 'Log in with SSO' }).click();
  await signInAtProvider(page, sub);
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  return sub;
}

// Each test is a new person: the provider's own session (its cookies) would sign the last one in again at once.
afterEach(async () => {
  await b.context.clearCookies();
  await b.page.evaluate('sessionStorage.clear()').catch(() => undefined);
});

test('"Log in with SSO" goes to the provider and lands in the console signed in, with the role of the groups', async () => {
  const { page } = b;
  const sub = await signInThroughConsole(page, ['mo-admins']);
  await page.getByText(`Browser ${sub}`).waitFor();
  await page.getByText('(admin)').waitFor();
  // Admin pages are there for an admin, and the token left the address bar as it arrived.
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Credentials' }).waitFor();
  expect(page.url()).not.toContain('sso_token');
  expect(new URL(page.url()).pathname).toBe('/models');
  await page.getByRole('button', { name: 'Log out' }).click();
});

test('a link carrying a token this tab did not ask for (login CSRF) is ignored and taken out of the address', async () => {
  const { page } = b;
  // A real token of another account, as an attacker would get one from a sign-in of their own.
  const attackers = await apiToken(ADMIN().username, ADMIN().password);
  for (const fragment of [`sso_token=${attackers}`, `sso_token=${attackers}&sso_nonce=${'n'.repeat(43)}`]) {
    // Arriving from elsewhere (another site's link), as a new document: not a change of fragment.
    await page.goto('about:blank');
    await page.goto(`${CONSOLE()}/login#${fragment}`);
    await page.getByRole('link', { name: 'Log in with SSO' }).waitFor();
    expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(0);
    expect(page.url()).not.toContain('sso_token');
    expect(await page.evaluate("sessionStorage.getItem('model-ops.token')")).toBeNull();
  }
});

test('a link carrying an error of its own words neither logs a signed-in person out nor shows the words', async () => {
  const { page } = b;
  await signInThroughConsole(page, []);
  // The nonce was good for that one hand-off, and is gone.
  expect(await page.evaluate("sessionStorage.getItem('model-ops.sso-nonce')")).toBeNull();
  await page.goto(`${CONSOLE()}/keys#sso_error=${encodeURIComponent('Your account was suspended: call +1 555 0100')}`);
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  expect(await page.getByText('call +1 555 0100').count()).toBe(0);
  expect(page.url()).not.toContain('sso_error');
  await page.getByRole('button', { name: 'Log out' }).click();
});

test('a sign-in started from a page returns to that page', async () => {
  const { page } = b;
  const sub = await account([]);
  await page.goto(`${CONSOLE()}/keys`);
  await page.getByRole('link', { name: 'Log in with SSO' }).click();
  await signInAtProvider(page, sub);
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByText('(user)').waitFor();
  await page.getByRole('button', { name: 'Log out' }).click();
});

test('a refused sign-in is explained on the login page and logs nobody in', async () => {
  const { page } = b;
  // The account exists and is deactivated: the provider signs them in, the service refuses.
  await signInThroughConsole(page, []);
  const id = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('model-ops.user')).id");
  await page.getByRole('button', { name: 'Log out' }).click();
  const admin = await apiToken(ADMIN().username, ADMIN().password);
  await api('PATCH', `/api/admin/users/${id}`, { token: admin, body: { is_active: false } });

  // The provider remembers them (its own session): it signs them straight back, and the service refuses.
  await page.getByRole('link', { name: 'Log in with SSO' }).click();
  await page.getByRole('status').filter({ hasText: 'Single sign-on failed: Your account has been deactivated. Ask an administrator.' }).waitFor();
  expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(0);
  expect(page.url()).not.toContain('sso_error');
  expect(await page.evaluate('sessionStorage.length')).toBe(0);
});

test('with password login turned off the console shows only the SSO button', async () => {
  const { page } = b;
  // The run's service has both ways on; what the console draws for PASSWORD_LOGIN=false is shown by
  // answering its one question as such a service would (tests/integration/password-login-off.test.ts pins the service).
  await page.route('**/api/auth/config', (route) =>
    route.fulfill({ json: { success: true, password_login: false, sso: { enabled: true, login_url: '/api/auth/oidc/login' } } }),
  );
  await page.goto(`${CONSOLE()}/`);
  await page.getByRole('link', { name: 'Log in with SSO' }).waitFor();
  expect(await page.getByLabel('Password').count()).toBe(0);
  await page.unroute('**/api/auth/config');
});
