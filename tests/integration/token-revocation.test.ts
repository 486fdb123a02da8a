/**
 * Revoked login tokens (issue 26, item 4): signing out everywhere and a password change refuse every
 * token issued before them, compared to the second (a token's `iat` counts whole seconds), while a
 * login right after still gets a token that works. And the reads that authenticate are strongly
 * consistent, so none of this can be read back stale.
 */
import { handler as login } from '../../functions/auth/login';
import { handler as validate } from '../../functions/auth/validate';
import { handler as logout } from '../../functions/auth/logout';
import { handler as logoutAll } from '../../functions/auth/logout-all';
import { handler as listResources } from '../../functions/resources/list';
import { handler as updateUser } from '../../functions/admin/update-user';
import { handler as createKey } from '../../functions/keys/create';
import { handler as listModels } from '../../functions/gateway/models';
import { login as logIn } from '../../lib/auth/login';
import { issueToken } from '../../lib/auth/tokens';
import { revokeTokensBefore } from '../../tables/users';
import { db } from '../../tables/client';
import { DbMeter } from '../../bench/harness';
import { call, type Handler } from '../helpers/invoke';
import { PASSWORD, makeUser } from '../helpers/users';

const validateWith = (token: string) => call(validate as Handler, { path: '/api/auth/validate', token });
const resourcesWith = (token: string) => call(listResources as Handler, { path: '/api/resources', token });
const signIn = (username: string, password = PASSWORD) =>
  call(login as Handler, { method: 'POST', path: '/api/auth/login', body: { username, password } });
const REVOKED = 'The token was revoked (a password change, or signing out everywhere); sign in again';

/** A moment in the middle of the current second, so that tokens of "the same second" exist on both sides of it. */
const midSecond = () => Math.floor(Date.now() / 1000) * 1000 + 500;

describe('POST /api/auth/logout-all', () => {
  test('refuses every token of the caller issued before it, the one that called included, on validate and on any other endpoint', async () => {
    const { user, token } = await makeUser('user');
    const other = (await signIn(user.username)).body.token as string;
    expect((await validateWith(other)).status).toBe(200);

    const res = await call(logoutAll as Handler, { method: 'POST', path: '/api/auth/logout-all', token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String) });

    for (const revoked of [token, other]) {
      expect(await validateWith(revoked)).toMatchObject({
        status: 401,
        body: { success: false, message: 'Invalid or expired token', details: REVOKED },
      });
      expect(await resourcesWith(revoked)).toMatchObject({
        status: 401,
        body: { success: false, error: 'Authentication required', details: REVOKED },
      });
    }
  });

  test('leaves other users’ tokens alone', async () => {
    const { token } = await makeUser('user');
    const bystander = await makeUser('user');
    expect((await call(logoutAll as Handler, { method: 'POST', token })).status).toBe(200);
    expect((await validateWith(bystander.token)).status).toBe(200);
  });

  test('a login right after it gets a token that works', async () => {
    const { user, token } = await makeUser('user');
    expect((await call(logoutAll as Handler, { method: 'POST', token })).status).toBe(200);
    const fresh = await signIn(user.username);
    expect(fresh.status).toBe(200);
    expect((await validateWith(fresh.body.token)).status).toBe(200);
  });

  test('needs a token', async () => {
    const res = await call(logoutAll as Handler, { method: 'POST' });
    expect(res).toMatchObject({ status: 401, body: { success: false, error: 'Authentication required', details: 'No token provided' } });
  });
});

describe('the second of the revocation', () => {
  test('a token issued earlier in the same second as the revocation is refused', async () => {
    const { user } = await makeUser('user');
    const at = midSecond();
    const before = await issueToken(user, at - 400);
    await revokeTokensBefore(user.id, at);
    expect((await validateWith(before)).status).toBe(401);
  });

  test('a login in that same second, after it, waits for the next second and its token works', async () => {
    const { user } = await makeUser('user');
    const at = midSecond();
    await revokeTokensBefore(user.id, at);
    const { token } = await logIn({ login: user.username, password: PASSWORD }, at + 1);
    const iat = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).iat as number;
    expect(iat).toBe(Math.ceil(at / 1000));
    expect((await validateWith(token)).status).toBe(200);
  });

  test('a token of the next whole second is accepted', async () => {
    const { user } = await makeUser('user');
    const at = midSecond();
    await revokeTokensBefore(user.id, at);
    expect((await validateWith(await issueToken(user, Math.ceil(at / 1000) * 1000))).status).toBe(200);
  });

  test('an earlier revocation never replaces a later one', async () => {
    const { user } = await makeUser('user');
    const at = midSecond();
    await revokeTokensBefore(user.id, at + 10_000);
    await revokeTokensBefore(user.id, at);
    expect((await validateWith(await issueToken(user, at + 5_000))).status).toBe(401);
  });
});

describe('a password change', () => {
  test('by an admin refuses the tokens the user held, and the new password signs in', async () => {
    const { user, token } = await makeUser('user');
    const { token: admin } = await makeUser('super_admin');
    const changed = await call(updateUser as Handler, {
      method: 'PATCH',
      pathParameters: { userId: user.id },
      token: admin,
      body: { password: 'a-brand-new-password' },
    });
    expect(changed.status).toBe(200);
    expect(await validateWith(token)).toMatchObject({ status: 401, body: { details: REVOKED } });
    const fresh = await signIn(user.username, 'a-brand-new-password');
    expect(fresh.status).toBe(200);
    expect((await validateWith(fresh.body.token)).status).toBe(200);
  });

  test('that changes something else (the name) leaves the tokens valid', async () => {
    const { user, token } = await makeUser('user');
    const { token: admin } = await makeUser('super_admin');
    await call(updateUser as Handler, { method: 'PATCH', pathParameters: { userId: user.id }, token: admin, body: { name: 'Renamed' } });
    expect((await validateWith(token)).status).toBe(200);
  });
});

test('POST /api/auth/logout stays the spec’s client-side logout: the token itself still works', async () => {
  const { token } = await makeUser('user');
  expect((await call(logout as Handler, { method: 'POST', token })).status).toBe(200);
  expect((await validateWith(token)).status).toBe(200);
});

describe('the reads that authenticate', () => {
  // The benchmark's meter (bench/harness.ts) records every call through the service's client.
  const meter = new DbMeter();
  beforeAll(() => {
    meter.install(db);
    meter.record = true;
  });
  afterAll(() => db.middlewareStack.remove('benchDbMeter'));

  const reads = async (fn: () => Promise<unknown>) => {
    const { meter: snap } = await meter.measure(fn);
    // Item reads, and the Query of a user's partition (the /v1 guard reads the owner with their
    // memberships in one Query), by the partition they read.
    return snap.records
      .filter((r) => r.command === 'GetItemCommand' || r.command === 'QueryCommand')
      .map((r) => ({
        pk: String(r.command === 'GetItemCommand' ? r.input.Key?.PK : r.input.ExpressionAttributeValues?.[':pk']),
        consistent: r.input.ConsistentRead === true,
      }));
  };

  test('a login token’s user is read strongly consistent', async () => {
    const { user, token } = await makeUser('user');
    const seen = await reads(() => validateWith(token));
    expect(seen).toEqual([{ pk: `USER#${user.id}`, consistent: true }]);
  });

  test('login reads the name guard and the user strongly consistent', async () => {
    const { user } = await makeUser('user');
    const seen = await reads(() => signIn(user.email));
    const relevant = seen.filter((r) => r.pk.startsWith('EMAIL#') || r.pk.startsWith('USER#'));
    expect(relevant).toEqual(
      expect.arrayContaining([
        { pk: `EMAIL#${user.email.toLowerCase()}`, consistent: true },
        { pk: `USER#${user.id}`, consistent: true },
      ]),
    );
    expect(relevant.every((r) => r.consistent)).toBe(true);
  });

  test('an API key’s lookup and its owner are read strongly consistent', async () => {
    const { user, token } = await makeUser('user');
    const key = (await call(createKey as Handler, { method: 'POST', token, body: { name: 'consistent' } })).body.key as string;
    const seen = await reads(() => call(listModels as Handler, { path: '/v1/models', token: key }));
    expect(seen.filter((r) => r.pk.startsWith('KEYHASH#') || r.pk === `USER#${user.id}`)).toEqual([
      { pk: expect.stringMatching(/^KEYHASH#/), consistent: true },
      { pk: `USER#${user.id}`, consistent: true },
    ]);
  });
});
