/**
 * Single sign-on against the real OpenID provider of the test run (local/oidc-provider.ts: panva's
 * oidc-provider on loopback), with the service's handlers called in process: the browser's part is
 * tests/helpers/oidc.ts (cookies, redirects, the provider's login and consent pages), and the
 * provider's redirect back is handed to the callback handler as API Gateway would. Config is read
 * once at import, so single sign-on is turned on in the environment first and the handlers imported
 * after.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { call, type Handler } from '../helpers/invoke';
import { CookieJar, providerControl, signInAtProvider } from '../helpers/oidc';
import type { captureLogs as CaptureLogs } from '../helpers/logs';
import type * as UsersTable from '../../tables/users';
import type { verifyToken as VerifyToken } from '../../lib/auth/tokens';
import type { makeUser as MakeUser } from '../helpers/users';
import type { updateUser as UpdateUser } from '../../lib/users/service';

jest.setTimeout(60_000);

const savedEnv = { ...process.env };
const ISSUER = process.env.TEST_OIDC_ISSUER as string;
const CALLBACK = process.env.TEST_OIDC_REDIRECT_URL as string;
const CONSOLE = `${new URL(CALLBACK).origin}/login`;

let h: Record<
  'login' | 'callback' | 'config' | 'passwordLogin' | 'validate' | 'audit' | 'createTeam' | 'addMember' | 'createKey' | 'listTeams',
  Handler
>;
let tables: typeof UsersTable;
let verifyToken: typeof VerifyToken;
let makeUser: typeof MakeUser;
let updateUser: typeof UpdateUser;
let captureLogs: typeof CaptureLogs;
let superAdmin: string;

beforeAll(async () => {
  Object.assign(process.env, {
    OIDC_ISSUER: ISSUER,
    OIDC_CLIENT_ID: process.env.TEST_OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: process.env.TEST_OIDC_CLIENT_SECRET,
    OIDC_REDIRECT_URL: CALLBACK,
    OIDC_SCOPES: 'openid email profile groups',
    OIDC_ADMIN_GROUPS: 'mo-admins',
    OIDC_SUPER_ADMIN_GROUPS: 'mo-super-admins',
    OIDC_TEAM_GROUPS_PREFIX: 'team-',
  });
  h = {
    login: (await import('../../functions/auth/oidc-login')).handler as Handler,
    callback: (await import('../../functions/auth/oidc-callback')).handler as Handler,
    config: (await import('../../functions/auth/config')).handler as Handler,
    passwordLogin: (await import('../../functions/auth/login')).handler as Handler,
    validate: (await import('../../functions/auth/validate')).handler as Handler,
    audit: (await import('../../functions/admin/list-audit')).handler as Handler,
    createTeam: (await import('../../functions/teams/create')).handler as Handler,
    addMember: (await import('../../functions/teams/add-member')).handler as Handler,
    createKey: (await import('../../functions/keys/create')).handler as Handler,
    listTeams: (await import('../../functions/teams/list')).handler as Handler,
  };
  tables = await import('../../tables/users');
  verifyToken = (await import('../../lib/auth/tokens')).verifyToken;
  makeUser = (await import('../helpers/users')).makeUser;
  updateUser = (await import('../../lib/users/service')).updateUser;
  captureLogs = (await import('../helpers/logs')).captureLogs;
  superAdmin = (await makeUser('super_admin')).token;
});

afterAll(() => {
  process.env = savedEnv;
});

interface Person {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  groups?: string[];
}

/** An account at the provider, unique to the test. */
async function person(claims: Partial<Person> = {}): Promise<Person> {
  const tag = randomUUID().slice(0, 8);
  const p: Person = {
    sub: `sub-${tag}`,
    email: `p-${tag}@example.test`,
    email_verified: true,
    preferred_username: `p-${tag}`,
    name: `P ${tag}`,
    groups: [],
    ...claims,
  };
  await providerControl(ISSUER, 'accounts', { ...p });
  return p;
}

/** The console's nonce of one sign-in, as it makes it (32 random bytes, base64url). */
const consoleNonce = () => randomBytes(32).toString('base64url');

/** GET /api/auth/oidc/login in process: the redirect to the provider; the flow cookie goes into the jar. */
async function start(jar: CookieJar, next?: string, nonce = consoleNonce()) {
  const res = await call(h.login, { path: '/api/auth/oidc/login', query: { nonce, ...(next ? { next } : {}) } });
  expect(res.status).toBe(302);
  jar.absorb(CALLBACK, [res.headers['Set-Cookie'] as string]);
  return { location: res.headers.Location as string, cookie: res.headers['Set-Cookie'] as string, nonce };
}

/** The provider's redirect back, handed to the callback handler with the browser's cookies (or `cookie`). */
async function finish(jar: CookieJar, callbackUrl: string, cookie = jar.header(callbackUrl)) {
  const url = new URL(callbackUrl);
  const res = await call(h.callback, { path: url.pathname, query: Object.fromEntries(url.searchParams), headers: cookie ? { cookie } : {} });
  jar.absorb(callbackUrl, [res.headers['Set-Cookie'] as string]);
  const location = res.headers.Location as string;
  const fragment = new URLSearchParams(new URL(location).hash.slice(1));
  return {
    status: res.status,
    location,
    setCookie: res.headers['Set-Cookie'] as string,
    token: fragment.get('sso_token') ?? undefined,
    error: fragment.get('sso_error') ?? undefined,
    nonce: fragment.get('sso_nonce') ?? undefined,
  };
}

/** A whole sign-in as a browser does it. */
async function signIn(p: Person, options: { next?: string } = {}) {
  const jar = new CookieJar();
  const { location, nonce } = await start(jar, options.next);
  const res = await finish(jar, await signInAtProvider(jar, location, p.sub));
  return { ...res, sentNonce: nonce };
}

async function auditOf(userId: string) {
  const res = await call(h.audit, { token: superAdmin, query: { limit: '100' } });
  return (res.body.entries as { action: string; actor: { id: string; role: string }; outcome: string; detail?: string; target?: string }[]).filter(
    (e) => e.actor.id === userId,
  );
}

describe('starting a sign-in', () => {
  test('redirects to the provider with the code flow, PKCE (S256), state and nonce, and sets the flow cookie', async () => {
    const { location, cookie, nonce } = await start(new CookieJar());
    const url = new URL(location);
    // The console's nonce is its own business: it stays in the cookie and never goes to the provider.
    expect(location).not.toContain(nonce);
    expect(`${url.origin}${url.pathname}`).toBe(`${ISSUER}/auth`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: process.env.TEST_OIDC_CLIENT_ID,
      redirect_uri: CALLBACK,
      scope: 'openid email profile groups',
      code_challenge_method: 'S256',
    });
    expect(q.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).toMatch(/^mo_sso=[^;]+; Path=\/api\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });

  test("refuses a start without the console's nonce, or with one too short to be random, with a 400 naming it and no cookie", async () => {
    const queries: Record<string, string>[] = [{}, { next: '/keys' }, { nonce: 'short' }, { nonce: `${'a'.repeat(40)}!` }];
    for (const query of queries) {
      const res = await call(h.login, { path: '/api/auth/oidc/login', query });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(/field 'nonce'/) });
      expect(res.headers['Set-Cookie']).toBeUndefined();
    }
  });

  test('keeps its secrets out of reach: the cookie is encrypted (neither state nor nonce in it), and each start is new', async () => {
    const a = await start(new CookieJar());
    const b = await start(new CookieJar());
    const state = new URL(a.location).searchParams.get('state') as string;
    expect(a.cookie).not.toContain(state);
    expect(Buffer.from(a.cookie.split('=')[1]?.split('.')[1] ?? '', 'base64url').toString('latin1')).not.toContain(state);
    expect(new URL(b.location).searchParams.get('state')).not.toBe(state);
  });
});

describe('the first sign-in', () => {
  test('provisions the user from the claims with the role of their groups, and hands the 24-hour token to the console in the fragment', async () => {
    const p = await person({ groups: ['mo-admins'], name: 'Ada Lovelace' });
    const res = await signIn(p);
    expect(res.status).toBe(302);
    expect(res.location.startsWith(`${CONSOLE}#sso_token=`)).toBe(true);
    // The console's nonce comes back from the flow cookie, beside the token: its proof that it asked.
    expect(res.nonce).toBe(res.sentNonce);
    const claims = await verifyToken(res.token as string);
    expect(claims).toMatchObject({ username: p.preferred_username, role: 'admin' });
    expect(claims.exp - claims.iat).toBe(86_400);
    const validated = await call(h.validate, { token: res.token });
    expect(validated.body.user).toMatchObject({
      username: p.preferred_username,
      email: p.email,
      name: 'Ada Lovelace',
      role: 'admin',
      last_login: expect.any(String),
    });
  });

  test('is in the audit log with the user as the actor: provisioned, then logged in', async () => {
    const p = await person();
    const { token } = await signIn(p);
    const { userId } = await verifyToken(token as string);
    const actions = (await auditOf(userId)).map((e) => `${e.action}:${e.outcome}`);
    expect(actions).toEqual(expect.arrayContaining(['sso.user_provisioned:success', 'sso.login:success']));
  });

  test('gives a user provisioned by sign-on no password: a password login as them fails like any wrong password', async () => {
    const p = await person();
    await signIn(p);
    for (const password of ['', 'any-password']) {
      const res = await call(h.passwordLogin, { method: 'POST', body: { username: p.preferred_username, password } });
      expect(res.status).toBe(password ? 401 : 400);
    }
  });

  test('makes a taken username unique with a suffix of its own', async () => {
    const existing = await makeUser('user');
    const p = await person({ preferred_username: existing.user.username });
    const { userId, username } = await verifyToken((await signIn(p)).token as string);
    expect(userId).not.toBe(existing.user.id);
    expect(username).toMatch(new RegExp(`^${existing.user.username}-[0-9a-f]{6}$`));
  });

  test('links an existing account with the same e-mail when the provider vouches for it (email_verified)', async () => {
    const existing = await makeUser('user');
    const p = await person({ email: existing.user.email, email_verified: true });
    const first = await verifyToken((await signIn(p)).token as string);
    const again = await verifyToken((await signIn(p)).token as string);
    expect([first.userId, again.userId]).toEqual([existing.user.id, existing.user.id]);
    expect((await auditOf(existing.user.id)).map((e) => e.action)).toContain('sso.user_linked');
  });

  test('refuses to link an existing account to an e-mail the provider does not vouch for: no token, no link', async () => {
    const existing = await makeUser('user');
    const p = await person({ email: existing.user.email, email_verified: false });
    const res = await signIn(p);
    expect(res.token).toBeUndefined();
    expect(res.error).toMatch(/has not verified your e-mail address \(email_verified\)/);
    expect(await tables.getUserIdByIdentity({ issuer: ISSUER, subject: p.sub })).toBeUndefined();
  });

  test('stores no unverified e-mail: the first sign-in is refused, and the owner who comes verified later gets the address', async () => {
    const email = `squat-${randomUUID().slice(0, 8)}@example.test`;
    const squatter = await person({ email, email_verified: false });
    const refused = await signIn(squatter);
    expect(refused.token).toBeUndefined();
    expect(refused.error).toMatch(/has not verified your e-mail address/);
    expect(await tables.getUserIdByIdentity({ issuer: ISSUER, subject: squatter.sub })).toBeUndefined();
    expect(await tables.getUserByEmail(email)).toBeUndefined();

    const owner = await person({ email, email_verified: true });
    const { userId } = await verifyToken((await signIn(owner)).token as string);
    expect((await tables.getUserByEmail(email))?.id).toBe(userId);
    expect(await tables.getUserIdByIdentity({ issuer: ISSUER, subject: squatter.sub })).toBeUndefined();
  });

  test('refuses an identity without an e-mail address', async () => {
    const p = await person({ email: undefined });
    const res = await signIn(p);
    expect(res.token).toBeUndefined();
    expect(res.error).toMatch(/did not share your e-mail address/);
  });

  test('never looks an e-mail claim without @ up as a username: a verified "email" naming a local user is refused, and links nothing', async () => {
    const local = await makeUser('admin');
    const p = await person({ email: local.user.username, email_verified: true });
    const res = await signIn(p);
    expect(res.token).toBeUndefined();
    expect(res.error).toMatch(/did not share your e-mail address/);
    expect(await tables.getUserIdByIdentity({ issuer: ISSUER, subject: p.sub })).toBeUndefined();
    expect((await auditOf(local.user.id)).map((e) => e.action)).not.toContain('sso.user_linked');
  });

  test('goes on to the page asked for when the sign-in started (next)', async () => {
    const res = await signIn(await person(), { next: '/keys' });
    expect(res.location.startsWith(`${CONSOLE}?next=%2Fkeys#sso_token=`)).toBe(true);
  });

  test('refuses a next that leaves the console (another site) with a 400', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      expect((await call(h.login, { path: '/api/auth/oidc/login', query: { next, nonce: consoleNonce() } })).status).toBe(400);
    }
  });
});

describe('every later sign-in', () => {
  test('re-applies the role from the groups, both ways, and audits each change', async () => {
    const p = await person({ groups: ['mo-super-admins'] });
    const first = await verifyToken((await signIn(p)).token as string);
    expect(first.role).toBe('super_admin');
    await providerControl(ISSUER, 'accounts', { ...p, groups: ['mo-admins'] });
    expect((await verifyToken((await signIn(p)).token as string)).role).toBe('admin');
    await providerControl(ISSUER, 'accounts', { ...p, groups: [] });
    expect((await verifyToken((await signIn(p)).token as string)).role).toBe('user');
    const changes = (await auditOf(first.userId)).filter((e) => e.action === 'sso.role_change').map((e) => e.detail);
    expect(changes).toEqual(expect.arrayContaining([expect.stringMatching(/^super_admin to admin/), expect.stringMatching(/^admin to user/)]));
  });

  test('refuses a deactivated user: no token, and the refusal is audited', async () => {
    const p = await person();
    const { userId } = await verifyToken((await signIn(p)).token as string);
    await updateUser(userId, { is_active: false });
    const res = await signIn(p);
    expect(res.token).toBeUndefined();
    expect(res.error).toBe('Your account has been deactivated. Ask an administrator.');
    expect((await auditOf(userId)).some((e) => e.action === 'sso.login' && e.outcome === 'failure')).toBe(true);
  });
});

describe('teams from groups', () => {
  test('a group team-<name> joins the team <name> as a member; a group naming no team is noted, and creates none', async () => {
    const team = (await call(h.createTeam, { method: 'POST', token: superAdmin, body: { name: `ml-${randomUUID().slice(0, 6)}` } })).body.team;
    const ghost = `ghost-${randomUUID().slice(0, 6)}`;
    const p = await person({ groups: [`team-${team.name}`, `team-${ghost}`, 'unrelated'] });
    const { token } = await signIn(p);
    const teams = (await call(h.listTeams, { token })).body.teams;
    expect(teams).toEqual([expect.objectContaining({ id: team.id, my_role: 'member' })]);
    const { userId } = await verifyToken(token as string);
    const audit = await auditOf(userId);
    expect(audit.find((e) => e.action === 'sso.team_join')?.target).toBe(team.name);
    expect(audit.find((e) => e.action === 'sso.login')?.detail).toBe(`Groups naming no team: ${ghost}`);
  });

  test('a membership sign-on gave goes (with the team keys) when the group goes; one given by hand stays', async () => {
    const [gone, kept] = await Promise.all(
      ['gone', 'kept'].map(
        async (n) => (await call(h.createTeam, { method: 'POST', token: superAdmin, body: { name: `${n}-${randomUUID().slice(0, 6)}` } })).body.team,
      ),
    );
    const p = await person({ groups: [`team-${gone.name}`] });
    const { token } = await signIn(p);
    const { userId } = await verifyToken(token as string);
    await call(h.addMember, { method: 'POST', token: superAdmin, pathParameters: { teamId: kept.id }, body: { user_id: userId, role: 'owner' } });
    const key = await call(h.createKey, { method: 'POST', token, body: { name: 'svc', team_id: gone.id } });
    expect(key.status).toBe(201);
    await providerControl(ISSUER, 'accounts', { ...p, groups: [] });
    const later = await signIn(p);
    const teams = (await call(h.listTeams, { token: later.token })).body.teams;
    expect(teams.map((t: { id: string }) => t.id)).toEqual([kept.id]);
    const left = (await auditOf(userId)).find((e) => e.action === 'sso.team_leave');
    expect(left).toMatchObject({ target: gone.name, detail: expect.stringContaining('1 key(s) revoked') });
  });
});

describe('a provider that sends no groups claim while groups are mapped', () => {
  const configAs = async (token?: string) => (await call(h.config, { path: '/api/auth/config', token })).body;

  test('is audited and logged naming OIDC_SCOPES and OIDC_GROUPS_CLAIM, shown to admins only, and cleared by a login with the claim', async () => {
    const p = await person({ groups: undefined });
    let token = '';
    const logs = await captureLogs(async () => {
      token = (await signIn(p)).token as string;
    });
    const { userId, role } = await verifyToken(token);
    expect(role).toBe('user');
    const warning = (await auditOf(userId)).find((e) => e.action === 'sso.groups_missing');
    expect(warning).toMatchObject({ outcome: 'failure', target: p.sub });
    for (const text of [warning?.detail, logs]) {
      expect(text).toMatch(/OIDC_ADMIN_GROUPS/);
      // (the log is JSON: its quotes are escaped)
      expect(text).toMatch(/OIDC_SCOPES \(now \\?"openid email profile groups\\?"\)/);
      expect(text).toMatch(/OIDC_GROUPS_CLAIM \(now \\?"groups\\?"\)/);
    }
    expect(logs).toMatch(/"level":"WARN".*sign-on: no groups claim/);

    const shown = (await configAs(superAdmin)).sso.warnings;
    expect(shown).toEqual([
      { code: 'groups_claim_missing', message: expect.stringMatching(/OIDC_SCOPES.*OIDC_GROUPS_CLAIM/), last_seen_at: expect.any(String) },
    ]);
    // Anyone else gets the public answer, as before: no warnings, not even an empty list.
    for (const viewer of [undefined, token, 'not-a-token'])
      expect((await configAs(viewer)).sso).toEqual({ enabled: true, login_url: '/api/auth/oidc/login' });

    // An empty list is a claim ("in no group"): the provider is asking for it now, and the warning goes.
    await signIn(await person({ groups: [] }));
    expect((await configAs(superAdmin)).sso.warnings).toEqual([]);
  });

  test('is not warned about when the claim comes, even empty', async () => {
    const p = await person({ groups: [] });
    const { userId } = await verifyToken((await signIn(p)).token as string);
    expect((await auditOf(userId)).map((e) => e.action)).not.toContain('sso.groups_missing');
  });
});

describe('a sign-in that must fail creates no session', () => {
  /** A sign-in up to the provider's redirect back, not yet handed to the service. */
  async function upToCallback(p: Person) {
    const jar = new CookieJar();
    const { location, nonce } = await start(jar);
    return { jar, nonce, callbackUrl: await signInAtProvider(jar, location, p.sub) };
  }

  async function expectRefused(res: Awaited<ReturnType<typeof finish>>, p: Person, message: RegExp, nonce?: string) {
    expect(res.status).toBe(302);
    // The refusal carries the nonce of the flow whose cookie came with it (none without a flow):
    // the console shows only a refusal of the sign-in it started.
    expect(res.nonce).toBe(nonce);
    expect(res.token).toBeUndefined();
    expect(res.location).not.toContain('sso_token');
    expect(res.error).toMatch(message);
    // The flow cookie is cleared whatever happened.
    expect(res.setCookie).toMatch(/^mo_sso=; Path=\/api\/auth\/oidc; Max-Age=0;/);
    expect(await tables.getUserIdByIdentity({ issuer: ISSUER, subject: p.sub })).toBeUndefined();
  }

  test('a state that is not the one this browser sent', async () => {
    const p = await person();
    const { jar, callbackUrl, nonce } = await upToCallback(p);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', 'x'.repeat(43));
    await expectRefused(await finish(jar, forged.href), p, /state mismatch/, nonce);
  });

  test('no flow cookie (another browser, or one that never started)', async () => {
    const p = await person();
    const { callbackUrl } = await upToCallback(p);
    await expectRefused(await finish(new CookieJar(), callbackUrl, ''), p, /expired or was started in another browser/);
  });

  test("another browser's flow cookie with this response (login CSRF)", async () => {
    const p = await person();
    const { callbackUrl } = await upToCallback(p);
    const other = await start(new CookieJar());
    await expectRefused(await finish(new CookieJar(), callbackUrl, other.cookie.split(';')[0]), p, /state mismatch/, other.nonce);
  });

  test('a replayed code: the second use, even with the same cookie, is refused by the provider', async () => {
    const p = await person();
    const { jar, callbackUrl } = await upToCallback(p);
    const cookie = jar.header(callbackUrl);
    const first = await finish(jar, callbackUrl, cookie);
    expect(first.token).toEqual(expect.any(String));
    const replay = await finish(jar, callbackUrl, cookie);
    expect(replay.token).toBeUndefined();
    expect(replay.error).toMatch(/refused to complete the sign-in \(invalid_grant\)/);
  });

  test('an error from the provider (the person declined)', async () => {
    const p = await person();
    const jar = new CookieJar();
    const started = await start(jar);
    const state = new URL(started.location).searchParams.get('state');
    const url = `${CALLBACK}?error=access_denied&error_description=End-User+aborted+interaction&state=${state}`;
    await expectRefused(await finish(jar, url), p, /did not sign you in \(access_denied: End-User aborted interaction\)/, started.nonce);
  });

  test('a response naming another issuer (iss, RFC 9207)', async () => {
    const p = await person();
    const { jar, callbackUrl, nonce } = await upToCallback(p);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('iss', 'https://evil.example');
    await expectRefused(await finish(jar, forged.href), p, /another issuer/, nonce);
  });

  test.each([
    ['expired', /ID token was refused: it has expired/],
    ['wrong-audience', /ID token was refused: its "aud" claim is wrong/],
    ['wrong-nonce', /ID token was refused: its "nonce" claim is wrong/],
    ['foreign-key', /ID token was refused: its signature is not by the provider's keys/],
  ])('an ID token that is %s', async (fault, message) => {
    const p = await person();
    const { jar, callbackUrl, nonce } = await upToCallback(p);
    await providerControl(ISSUER, 'faults', { sub: p.sub, fault });
    await expectRefused(await finish(jar, callbackUrl), p, message, nonce);
  });
});
