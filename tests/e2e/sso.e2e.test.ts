/**
 * Single sign-on end to end: a cookie-keeping client (tests/helpers/oidc.ts) goes from the service's
 * "Log in with SSO" link through the loopback OpenID provider's own login and consent pages and back
 * through the front door and serverless-offline (E2E_OIDC_ORIGIN, the origin OIDC_REDIRECT_URL names),
 * as a browser does. Every answer of the service is checked against docs/openapi.yaml.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { validateResponse } from './contract';
import { http, loginAsAdmin } from './http';
import { CookieJar, providerControl, signInAtProvider, visit } from '../helpers/oidc';

const ORIGIN = () => process.env.E2E_OIDC_ORIGIN as string;
const ISSUER = () => process.env.E2E_OIDC_ISSUER as string;

/** A request to the service, as the browser sends it, checked against the contract and for leaked secrets. */
async function toService(jar: CookieJar, url: string, cookie?: string) {
  const res = await visit(jar, url, cookie === undefined ? {} : { cookie });
  validateResponse('GET', new URL(url).pathname, res.status, res.text);
  expect(res.text).not.toContain(process.env.E2E_OIDC_CLIENT_SECRET as string);
  return res;
}

async function account(groups: string[] = []) {
  const tag = randomUUID().slice(0, 8);
  const sub = `e2e-${tag}`;
  await providerControl(ISSUER(), 'accounts', {
    sub,
    email: `${sub}@example.test`,
    email_verified: true,
    preferred_username: sub,
    name: `E2E ${tag}`,
    groups,
  });
  return sub;
}

/** The nonce the console makes for a sign-in (32 random bytes, base64url). */
const consoleNonce = () => randomBytes(32).toString('base64url');

/** From the SSO link to the provider's redirect back (not yet followed). */
async function upToCallback(sub: string) {
  const jar = new CookieJar();
  const nonce = consoleNonce();
  const start = await toService(jar, `${ORIGIN()}/api/auth/oidc/login?nonce=${nonce}`);
  expect(start.status).toBe(302);
  return { jar, nonce, callback: await signInAtProvider(jar, start.location as string, sub) };
}

/** What the callback hands the console in the fragment. */
const handOff = (location = '') => new URLSearchParams(new URL(location).hash.slice(1));
const tokenIn = (location = '') => handOff(location).get('sso_token') ?? undefined;

test('the console is told that single sign-on is on, beside the password form', async () => {
  const res = await http('GET', '/api/auth/config');
  expect(res.body).toEqual({ success: true, password_login: true, sso: { enabled: true, login_url: '/api/auth/oidc/login' } });
});

test('a person signs in at the provider and lands in the console with the token, the role of their groups and the team of their group', async () => {
  const admin = await loginAsAdmin();
  const team = (await http('POST', '/api/teams', { token: admin, body: { name: `sso-${randomUUID().slice(0, 8)}`, monthly_budget_usd: 10 } })).body
    .team;
  const sub = await account(['mo-admins', `team-${team.name}`]);
  const { jar, nonce, callback } = await upToCallback(sub);
  expect(callback.startsWith(`${ORIGIN()}/api/auth/oidc/callback?code=`)).toBe(true);
  const landed = await toService(jar, callback);
  expect(landed.status).toBe(302);
  expect(landed.location?.startsWith(`${ORIGIN()}/login#sso_token=`)).toBe(true);
  expect(handOff(landed.location).get('sso_nonce')).toBe(nonce);
  // The flow cookie is gone from the browser.
  expect(jar.get(ORIGIN(), 'mo_sso')).toBeUndefined();

  const token = tokenIn(landed.location) as string;
  const me = await http('GET', '/api/auth/validate', { token });
  expect(me.body.user).toMatchObject({ username: sub, role: 'admin', email: `${sub}@example.test` });
  const teams = await http('GET', '/api/teams', { token, headers: {} });
  expect(teams.body.teams.map((t: { id: string }) => t.id)).toContain(team.id);
});

test('the flow cookie is HttpOnly, SameSite=Lax and scoped to the sign-on paths, through serverless-offline and the front door', async () => {
  const res = await visit(new CookieJar(), `${ORIGIN()}/api/auth/oidc/login?next=%2Fteams&nonce=${consoleNonce()}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('mo_sso=')) as string;
  expect(cookie).toMatch(/; Path=\/api\/auth\/oidc/);
  expect(cookie).toMatch(/; HttpOnly/);
  expect(cookie).toMatch(/; SameSite=Lax/);
  expect(cookie).toMatch(/; Max-Age=600/);
  expect(res.headers.get('cache-control')).toBe('no-store');
});

describe('refused sign-ins create no session', () => {
  async function expectRefused(location: string | undefined, message: RegExp) {
    expect(location?.startsWith(`${ORIGIN()}/login#sso_error=`)).toBe(true);
    expect(location).not.toContain('sso_token');
    expect(handOff(location).get('sso_error')).toMatch(message);
  }

  test('a changed state', async () => {
    const { jar, callback } = await upToCallback(await account());
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-forged-state-forged-state-0000');
    await expectRefused((await toService(jar, forged.href)).location, /state mismatch/);
  });

  test('a replayed code, even with the flow cookie kept from before', async () => {
    const { jar, callback } = await upToCallback(await account());
    const cookie = jar.header(callback);
    expect(tokenIn((await toService(jar, callback, cookie)).location)).toEqual(expect.any(String));
    await expectRefused((await toService(jar, callback, cookie)).location, /invalid_grant/);
  });

  test('an ID token for another audience', async () => {
    const sub = await account();
    const { jar, callback } = await upToCallback(sub);
    await providerControl(ISSUER(), 'faults', { sub, fault: 'wrong-audience' });
    await expectRefused((await toService(jar, callback)).location, /"aud" claim is wrong/);
  });

  test('an ID token signed by a key the provider does not publish', async () => {
    const sub = await account();
    const { jar, callback } = await upToCallback(sub);
    await providerControl(ISSUER(), 'faults', { sub, fault: 'foreign-key' });
    await expectRefused((await toService(jar, callback)).location, /signature is not by the provider's keys/);
  });

  test('an expired ID token', async () => {
    const sub = await account();
    const { jar, callback } = await upToCallback(sub);
    await providerControl(ISSUER(), 'faults', { sub, fault: 'expired' });
    await expectRefused((await toService(jar, callback)).location, /expired/);
  });
});
