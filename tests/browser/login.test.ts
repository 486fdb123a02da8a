import { SignJWT } from 'jose';
import { ADMIN, CONSOLE, api, logIn, browserPerFile, type Browser } from './helpers';

const b = browserPerFile();

/** A token signed as the service signs them, for the seeded admin, issued so that it expires at `exp`. */
async function tokenExpiringAt(expSeconds: number): Promise<string> {
  const me = await api<{ token: string; user: { id: string; username: string } }>('POST', '/api/auth/login', { body: ADMIN() });
  const iat = expSeconds - 86_400;
  return new SignJWT({ userId: me.user.id, username: me.user.username, role: 'super_admin' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(expSeconds)
    .sign(new TextEncoder().encode(process.env.JWT_SECRET));
}

test('the console and its assets are served with the deploy’s security headers and cache rules', async () => {
  const index = await fetch(`${CONSOLE()}/resources`);
  expect(index.status).toBe(200);
  expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(index.headers.get('cache-control')).toBe('no-cache');
  expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(index.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(index.headers.get('x-frame-options')).toBe('DENY');
  const html = await index.text();
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const script = await fetch(`${CONSOLE()}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
  expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(script.headers.get('content-encoding')).toBe('gzip');
  expect((await fetch(`${CONSOLE()}/assets/missing.js`)).status).toBe(404);
  // The API behind the same origin answers in its own words.
  expect(await (await fetch(`${CONSOLE()}/api/no/such/route`)).json()).toMatchObject({ success: false, error: 'Route not found' });
});

test('a wrong password is refused in words next to the form', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/`);
  await page.getByLabel('Username or e-mail').fill(ADMIN().username);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expectText(page.getByRole('alert'), 'Invalid username or password');
  expect(page.url()).toContain('/login');
  expect(await page.getByRole('link', { name: 'Models' }).count()).toBe(0);
});

test('logging in with the e-mail address opens the page asked for, and logging out forgets the token', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/usage`);
  await page.getByLabel('Username or e-mail').fill(`${ADMIN().username}@example.com`);
  await page.getByLabel('Password').fill(ADMIN().password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/usage');
  await page.getByRole('button', { name: 'Log out' }).click();
  await expectText(page.getByRole('status'), 'You have logged out.');
  expect(await page.evaluate('sessionStorage.length')).toBe(0);
  await page.goto(`${CONSOLE()}/resources`);
  await page.getByRole('button', { name: 'Log in' }).waitFor();
});

test('a session found expired on opening the console says so and returns to the login page', async () => {
  const { page } = b;
  const expired = await tokenExpiringAt(Math.floor(Date.now() / 1000) - 60);
  await page.goto(`${CONSOLE()}/login`);
  await page.evaluate(`sessionStorage.setItem('model-ops.token', ${JSON.stringify(expired)})`);
  await page.goto(`${CONSOLE()}/resources`);
  await expectText(page.getByRole('status'), 'Your session has expired. Please log in again.');
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  // Logging in again goes back to where the person was.
  await page.getByLabel('Username or e-mail').fill(ADMIN().username);
  await page.getByLabel('Password').fill(ADMIN().password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Resources', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Log out' }).click();
});

test('a session that expires while the console is open says so and returns to the login page', async () => {
  const { page } = b;
  const soon = await tokenExpiringAt(Math.floor(Date.now() / 1000) + 4);
  await page.goto(`${CONSOLE()}/login`);
  await page.evaluate(`sessionStorage.setItem('model-ops.token', ${JSON.stringify(soon)})`);
  await page.goto(`${CONSOLE()}/models`);
  await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
  await expectText(page.getByRole('status'), 'Your session has expired. Please log in again.', 15_000);
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  expect(await page.evaluate('sessionStorage.length')).toBe(0);
});

test('a token the service refuses ends the session with the same message', async () => {
  const { page } = b;
  await logIn(page, ADMIN().username, ADMIN().password);
  // A token that reads as valid in the browser but is not signed by the service (as after a rotated
  // signing secret): the next API call answers 401.
  const forged = await new SignJWT({ userId: '00000000-0000-4000-8000-000000000000', username: 'x', role: 'user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('24h')
    .sign(new TextEncoder().encode('a-different-secret-of-at-least-thirty-two-bytes'));
  await page.evaluate(`sessionStorage.setItem('model-ops.token', ${JSON.stringify(forged)})`);
  await page.reload();
  await expectText(page.getByRole('status'), 'Your session has expired. Please log in again.');
});

async function expectText(locator: ReturnType<Browser['page']['getByRole']>, text: string, timeout = 20_000) {
  await locator.filter({ hasText: text }).first().waitFor({ timeout });
}
