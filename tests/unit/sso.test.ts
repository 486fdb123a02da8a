/**
 * The pieces of single sign-on that need no provider: the configuration's loud checks, the ID token
 * verifier against tokens forged here (every claim the verifier must refuse, one at a time, each
 * otherwise valid and signed by a key of the set it is checked with), usernames from claims, the
 * role from groups, the flow cookie in the request.
 */
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { loadConfig } from '../../core/config';
import { flowCookieOf, verifyIdToken } from '../../lib/auth/oidc';
import { roleFromGroups, usernameFrom } from '../../lib/signon/callback';

const OIDC = {
  OIDC_ISSUER: 'https://id.example.com',
  OIDC_CLIENT_ID: 'model-ops',
  OIDC_CLIENT_SECRET: 'secret',
  OIDC_REDIRECT_URL: 'https://console.example.com/api/auth/oidc/callback',
};

describe('single sign-on configuration', () => {
  test('is off without OIDC_ISSUER, and password login is on', () => {
    const { auth } = loadConfig({});
    expect(auth.oidc).toBeUndefined();
    expect(auth.passwordLogin).toBe(true);
  });

  test('with every setting: the defaults, the console on the callback origin, Secure cookies on https', () => {
    const { oidc } = loadConfig(OIDC).auth;
    expect(oidc).toMatchObject({
      issuer: 'https://id.example.com',
      discoveryUrl: 'https://id.example.com/.well-known/openid-configuration',
      clientSecret: { kind: 'value', value: 'secret' },
      consoleUrl: 'https://console.example.com/login',
      secureCookies: true,
      scopes: ['openid', 'email', 'profile'],
      groupsClaim: 'groups',
      adminGroups: [],
      superAdminGroups: [],
      teamGroupsPrefix: undefined,
    });
  });

  test('keeps the issuer exactly as given (a trailing slash is part of it), and discovers under it', () => {
    const { oidc } = loadConfig({ ...OIDC, OIDC_ISSUER: 'https://id.example.com/realms/x/' }).auth;
    expect(oidc?.issuer).toBe('https://id.example.com/realms/x/');
    expect(oidc?.discoveryUrl).toBe('https://id.example.com/realms/x/.well-known/openid-configuration');
  });

  test.each([
    [{ OIDC_CLIENT_ID: '' }, /OIDC_CLIENT_ID is not set/],
    [{ OIDC_REDIRECT_URL: '' }, /OIDC_REDIRECT_URL is not set/],
    [{ OIDC_CLIENT_SECRET: '' }, /OIDC_CLIENT_SECRET \(or OIDC_CLIENT_SECRET_PARAMETER/],
    [{ OIDC_ISSUER: 'http://id.example.com' }, /OIDC_ISSUER must be an https URL \(http only on localhost\)/],
    [{ OIDC_REDIRECT_URL: 'https://console.example.com/callback' }, /OIDC_REDIRECT_URL must end with \/api\/auth\/oidc\/callback/],
    [{ OIDC_SCOPES: 'email profile' }, /OIDC_SCOPES must include openid/],
    [{ OIDC_ISSUER: 'not a url' }, /OIDC_ISSUER must be a URL/],
  ])('refuses a half or wrong configuration, naming the variable (%o)', (change, message) => {
    expect(() => loadConfig({ ...OIDC, ...change })).toThrow(message);
  });

  test('refuses sign-on settings without OIDC_ISSUER rather than ignoring them', () => {
    expect(() => loadConfig({ OIDC_CLIENT_ID: 'model-ops' })).toThrow(/OIDC_CLIENT_ID is set but OIDC_ISSUER is not/);
  });

  test('takes the client secret from SSM in deployed stages (the parameter name), and allows http on loopback', () => {
    const { oidc } = loadConfig({
      ...OIDC,
      OIDC_CLIENT_SECRET: '',
      OIDC_CLIENT_SECRET_PARAMETER: '/model-ops/prod/oidc-client-secret',
      OIDC_ISSUER: 'http://127.0.0.1:4000',
      OIDC_REDIRECT_URL: 'http://localhost:3000/api/auth/oidc/callback',
    }).auth;
    expect(oidc?.clientSecret).toEqual({ kind: 'ssm', parameterName: '/model-ops/prod/oidc-client-secret' });
    expect(oidc?.secureCookies).toBe(false);
  });

  test('PASSWORD_LOGIN=false needs single sign-on, and takes only true or false', () => {
    expect(loadConfig({ ...OIDC, PASSWORD_LOGIN: 'false' }).auth.passwordLogin).toBe(false);
    expect(() => loadConfig({ PASSWORD_LOGIN: 'false' })).toThrow(/PASSWORD_LOGIN=false needs single sign-on/);
    expect(() => loadConfig({ PASSWORD_LOGIN: 'no' })).toThrow(/PASSWORD_LOGIN must be true or false/);
  });
});

describe('the ID token verifier', () => {
  const ISSUER = 'https://id.example.com';
  let key: CryptoKey;
  let other: CryptoKey;
  let jwks: ReturnType<typeof createLocalJWKSet>;
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    other = (await generateKeyPair('ES256')).privateKey;
    key = pair.privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    jwks = createLocalJWKSet({ keys: [jwk] });
  });

  const now = Math.floor(Date.now() / 1000);
  const valid: JWTPayload = { iss: ISSUER, sub: 'alice', aud: 'model-ops', iat: now, exp: now + 300, nonce: 'n-1' };
  const sign = (claims: JWTPayload, signer = key, alg = 'ES256') => new SignJWT(claims).setProtectedHeader({ alg, kid: 'k1' }).sign(signer);
  const verify = (token: string) => verifyIdToken(token, jwks, { issuer: ISSUER, clientId: 'model-ops', nonce: 'n-1', algorithms: ['ES256'] });

  test('accepts a token with every claim right, and returns its claims', async () => {
    expect(await verify(await sign(valid))).toMatchObject({ sub: 'alice' });
  });

  test.each([
    ['expired', { exp: now - 120, iat: now - 600 }, /it has expired/],
    ['from another issuer', { iss: 'https://evil.example' }, /"iss" claim is wrong/],
    ['for another audience', { aud: 'someone-else' }, /"aud" claim is wrong/],
    ['for several audiences without azp', { aud: ['model-ops', 'other'] }, /"azp" claim is wrong/],
    ['authorised to another party', { azp: 'other' }, /"azp" claim is wrong/],
    ['with another nonce', { nonce: 'n-2' }, /"nonce" claim is wrong/],
    ['without a nonce', { nonce: undefined }, /"nonce" claim/],
    ['without a subject', { sub: undefined }, /"sub" claim/],
  ])('refuses a token %s', async (_what, change, message) => {
    await expect(verify(await sign({ ...valid, ...change }))).rejects.toThrow(message);
  });

  test('accepts several audiences when azp names this client', async () => {
    expect(await verify(await sign({ ...valid, aud: ['model-ops', 'other'], azp: 'model-ops' }))).toMatchObject({ sub: 'alice' });
  });

  test('refuses a token signed by a key the JWKS does not hold, under a known key id', async () => {
    await expect(verify(await sign(valid, other))).rejects.toThrow(/signature is not by the provider's keys/);
  });

  test('refuses an unsigned token (alg none) and one signed with a shared secret (HS256)', async () => {
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(valid)).toString('base64url')}.`;
    await expect(verify(unsigned)).rejects.toThrow(/ID token was refused/);
    const hs = await new SignJWT(valid).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(new TextEncoder().encode('x'.repeat(32)));
    await expect(verify(hs)).rejects.toThrow(/algorithm that is not accepted/);
  });
});

describe('claims to user', () => {
  const id = { issuer: 'https://id.example.com', subject: 'abc' };

  test('the username is the preferred username, else the e-mail local part, in the characters usernames allow', () => {
    expect(usernameFrom({ ...id, preferredUsername: 'ada', email: 'x@example.com' }, 0)).toBe('ada');
    expect(usernameFrom({ ...id, email: 'grace.hopper@example.com' }, 0)).toBe('grace.hopper');
    expect(usernameFrom({ ...id, preferredUsername: 'Ada Lovelace (HR)' }, 0)).toBe('Ada-Lovelace-HR');
    expect(usernameFrom({ ...id, preferredUsername: 'ada@corp.example' }, 0)).toBe('ada');
  });

  test('a taken or too short name gets a suffix of the identity, the same every time', () => {
    const taken = usernameFrom({ ...id, preferredUsername: 'ada' }, 1);
    expect(taken).toMatch(/^ada-[0-9a-f]{6}$/);
    expect(usernameFrom({ ...id, preferredUsername: 'ada' }, 1)).toBe(taken);
    expect(usernameFrom({ ...id, preferredUsername: 'al' }, 0)).toMatch(/^al-[0-9a-f]{6}$/);
    expect(usernameFrom({ ...id, preferredUsername: '!!!' }, 0)).toMatch(/^user-[0-9a-f]{6}$/);
    expect(usernameFrom({ ...id, preferredUsername: 'x'.repeat(80) }, 1)).toHaveLength(64);
  });

  test('the role is super_admin, then admin, from the groups; user otherwise; none when no role groups are configured', () => {
    const groups = { adminGroups: ['admins'], superAdminGroups: ['root'] };
    expect(roleFromGroups(['admins', 'root'], groups)).toBe('super_admin');
    expect(roleFromGroups(['admins'], groups)).toBe('admin');
    expect(roleFromGroups(['staff'], groups)).toBe('user');
    expect(roleFromGroups(['admins'], { adminGroups: [], superAdminGroups: [] })).toBeUndefined();
  });

  test("the flow cookie is found among API Gateway's cookies or in a Cookie header", () => {
    expect(flowCookieOf(['a=1', 'mo_sso=abc.def'], undefined)).toBe('abc.def');
    expect(flowCookieOf(undefined, 'a=1; mo_sso=xyz; b=2')).toBe('xyz');
    expect(flowCookieOf(undefined, 'mo_ssox=1')).toBeUndefined();
  });
});
