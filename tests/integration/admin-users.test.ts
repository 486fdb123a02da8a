import { SignJWT } from 'jose';
import { handler as createUser } from '../../functions/admin/create-user';
import { handler as listUsers } from '../../functions/admin/list-users';
import { handler as getUser } from '../../functions/admin/get-user';
import { handler as updateUser } from '../../functions/admin/update-user';
import { handler as awsCredentials } from '../../functions/auth/aws-credentials';
import { handler as nvidiaCredentials } from '../../functions/auth/nvidia-credentials';
import { handler as login } from '../../functions/auth/login';
import { call, type Handler } from '../helpers/invoke';
import { PASSWORD, makeUser } from '../helpers/users';

const newUser = (tag: string, extra: Record<string, unknown> = {}) => ({
  username: `new-${tag}`,
  email: `new-${tag}@example.com`,
  name: 'New Person',
  organization: 'Acme',
  role: 'user',
  password: 'a-long-password',
  ...extra,
});

describe('POST /api/admin/users', () => {
  test('a super_admin creates a user who can then log in', async () => {
    const { token } = await makeUser('super_admin');
    const res = await call(createUser as Handler, { method: 'POST', token, body: newUser('a1') });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({
      username: 'new-a1',
      email: 'new-a1@example.com',
      role: 'user',
      is_active: true,
      organization: 'Acme',
      cloud_region: 'us-east-1',
      last_login: null,
    });
    expect(res.raw).not.toMatch(/password|hash/i);
    const logged = await call(login as Handler, { method: 'POST', body: { username: 'new-a1', password: 'a-long-password' } });
    expect(logged.status).toBe(200);
  });

  test('a second user with the same username, in another letter case, is 409 and writes nothing', async () => {
    const { token } = await makeUser('super_admin');
    expect((await call(createUser as Handler, { method: 'POST', token, body: newUser('dup') })).status).toBe(201);
    const res = await call(createUser as Handler, { method: 'POST', token, body: newUser('DUP', { email: 'other-dup@example.com' }) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, error: 'Username is already taken' });
    // the e-mail of the refused request stays free
    expect((await call(createUser as Handler, { method: 'POST', token, body: newUser('dup2', { email: 'other-dup@example.com' }) })).status).toBe(
      201,
    );
  });

  // JSON Schema counts characters; bcrypt reads bytes. The document says so (Password), this pins it.
  test('a password is limited to 72 bytes in UTF-8, not 72 characters: 24 three-byte characters pass, 25 are 400', async () => {
    const { token } = await makeUser('super_admin');
    const ascii = await call(createUser as Handler, { method: 'POST', token, body: newUser('pw72', { password: 'p'.repeat(72) }) });
    expect(ascii.status).toBe(201);
    const euros = await call(createUser as Handler, { method: 'POST', token, body: newUser('pw24', { password: '€'.repeat(24) }) });
    expect(euros.status).toBe(201);
    expect((await call(login as Handler, { method: 'POST', body: { username: 'new-pw24', password: '€'.repeat(24) } })).status).toBe(200);
    const over = await call(createUser as Handler, { method: 'POST', token, body: newUser('pw25', { password: '€'.repeat(25) }) });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ success: false, error: 'Password must be at most 72 bytes' });
  });

  test('an e-mail already registered, in another letter case, is 409', async () => {
    const { token } = await makeUser('super_admin');
    await call(createUser as Handler, { method: 'POST', token, body: newUser('em1') });
    const res = await call(createUser as Handler, { method: 'POST', token, body: newUser('em2', { email: 'NEW-EM1@example.com' }) });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('E-mail is already registered');
  });

  test.each([
    ['a short password', { password: 'short' }, "'password'"],
    ['an invalid role', { role: 'root' }, "'role'"],
    ['an invalid e-mail', { email: 'not-an-email' }, "'email'"],
    ['a username with @', { username: 'a@b' }, "'username'"],
    ['a missing name', { name: undefined }, "Missing required field 'name'"],
  ])('%s is 400 naming the field', async (_what, extra, expected) => {
    const { token } = await makeUser('super_admin');
    const res = await call(createUser as Handler, { method: 'POST', token, body: newUser(`bad-${Math.random().toString(36).slice(2, 8)}`, extra) });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(expected);
  });
});

describe('role matrix', () => {
  const adminOnly: [string, Handler][] = [
    ['aws-credentials', awsCredentials as Handler],
    ['nvidia-credentials', nvidiaCredentials as Handler],
  ];
  const superOnly: [string, Handler, Record<string, unknown>][] = [
    ['list users', listUsers as Handler, {}],
    ['create user', createUser as Handler, { method: 'POST', body: newUser('matrix') }],
  ];

  test.each(adminOnly)('%s is 403 for a user, 200 for admin and super_admin, 401 without a token', async (_name, handler) => {
    const user = await makeUser('user');
    const admin = await makeUser('admin');
    const superAdmin = await makeUser('super_admin');
    const forbidden = await call(handler, { token: user.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ success: false, error: 'Admin privileges required' });
    expect((await call(handler, { token: admin.token })).status).toBe(200);
    expect((await call(handler, { token: superAdmin.token })).status).toBe(200);
    expect((await call(handler, {})).status).toBe(401);
  });

  test.each(superOnly)('%s is 403 for user and admin', async (_name, handler, options) => {
    for (const role of ['user', 'admin'] as const) {
      const { token } = await makeUser(role);
      const res = await call(handler, { ...options, token });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Super admin privileges required');
    }
  });

  test('a user demoted after the token was issued loses admin rights at once', async () => {
    const admin = await makeUser('admin');
    const superAdmin = await makeUser('super_admin');
    expect((await call(awsCredentials as Handler, { token: admin.token })).status).toBe(200);
    await call(updateUser as Handler, {
      method: 'PATCH',
      pathParameters: { userId: admin.user.id },
      token: superAdmin.token,
      body: { role: 'user' },
    });
    expect((await call(awsCredentials as Handler, { token: admin.token })).status).toBe(403);
  });
});

describe('GET and PATCH /api/admin/users/{userId}', () => {
  test('reads one user; an unknown id is 404; a key-like id is 400', async () => {
    const { token, user } = await makeUser('super_admin');
    expect((await call(getUser as Handler, { token, pathParameters: { userId: user.id } })).body.user.id).toBe(user.id);
    expect((await call(getUser as Handler, { token, pathParameters: { userId: '00000000-0000-4000-8000-000000000000' } })).status).toBe(404);
    for (const bad of ['USER#abc', '../etc/passwd', 'x']) {
      const res = await call(getUser as Handler, { token, pathParameters: { userId: bad } });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("'userId'");
    }
  });

  test('updates name, organization, region and password', async () => {
    const { token } = await makeUser('super_admin');
    const { user } = await makeUser('user');
    const res = await call(updateUser as Handler, {
      method: 'PATCH',
      token,
      pathParameters: { userId: user.id },
      body: { name: 'Renamed', organization: 'Other', cloud_region: 'eu-west-1', password: 'another-password' },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ name: 'Renamed', organization: 'Other', cloud_region: 'eu-west-1' });
    expect(res.body.user.updated_at > user.updated_at).toBe(true);
    expect((await call(login as Handler, { method: 'POST', body: { username: user.username, password: 'another-password' } })).status).toBe(200);
  });

  test('an empty patch is 400', async () => {
    const { token } = await makeUser('super_admin');
    const { user } = await makeUser('user');
    expect((await call(updateUser as Handler, { method: 'PATCH', token, pathParameters: { userId: user.id }, body: {} })).status).toBe(400);
  });

  test('the last active super_admin cannot demote or deactivate themselves; with two, one can go', async () => {
    // This file's table starts with no super_admin counter; every super_admin created here counts.
    const first = await makeUser('super_admin');
    const list = await call(listUsers as Handler, { token: first.token, query: { limit: '100' } });
    const supers = list.body.users.filter((u: { role: string; is_active: boolean }) => u.role === 'super_admin' && u.is_active);
    // Demote every other super_admin, then try the last one.
    for (const s of supers.filter((u: { id: string }) => u.id !== first.user.id)) {
      expect(
        (await call(updateUser as Handler, { method: 'PATCH', token: first.token, pathParameters: { userId: s.id }, body: { role: 'admin' } }))
          .status,
      ).toBe(200);
    }
    const demote = await call(updateUser as Handler, {
      method: 'PATCH',
      token: first.token,
      pathParameters: { userId: first.user.id },
      body: { role: 'admin' },
    });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toBe('The last active super_admin cannot be demoted or deactivated');
    const deactivate = await call(updateUser as Handler, {
      method: 'PATCH',
      token: first.token,
      pathParameters: { userId: first.user.id },
      body: { is_active: false },
    });
    expect(deactivate.status).toBe(409);
    expect(deactivate.body.error).toBe('The last active super_admin cannot be demoted or deactivated');
    // the refused request changed nothing, the name guards included
    const after = await call(getUser as Handler, { token: first.token, pathParameters: { userId: first.user.id } });
    expect(after.body.user).toMatchObject({ role: 'super_admin', is_active: true });
    expect((await call(login as Handler, { method: 'POST', body: { username: first.user.username, password: PASSWORD } })).status).toBe(200);
  });
});

describe('GET /api/admin/users', () => {
  test('pages through every user with a cursor, none twice', async () => {
    const { token } = await makeUser('super_admin');
    for (let i = 0; i < 5; i++) await makeUser('user');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await call(listUsers as Handler, { token, query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.users.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.users.map((u: { id: string }) => u.id));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(6);
  });

  test('a forged cursor is 400, not a 500', async () => {
    const { token } = await makeUser('super_admin');
    const forged = Buffer.from(JSON.stringify({ PK: 'USER#x', SK: 'PROFILE', GSI1PK: 'OTHER', GSI1SK: 'x' })).toString('base64url');
    const res = await call(listUsers as Handler, { token, query: { cursor: forged } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid cursor');
  });

  test('a limit out of range is 400', async () => {
    const { token } = await makeUser('super_admin');
    expect((await call(listUsers as Handler, { token, query: { limit: '0' } })).status).toBe(400);
    expect((await call(listUsers as Handler, { token, query: { limit: 'abc' } })).status).toBe(400);
  });
});

describe('credential views', () => {
  test('cloud credentials are masked to the last four characters and the examples hold no secret', async () => {
    const { token } = await makeUser('admin');
    const res = await call(awsCredentials as Handler, { token });
    const c = res.body.credentials;
    expect(c.region).toBe('us-east-1');
    expect(c.secretAccessKey).toMatch(/^\*+0001$/);
    // Each integration file signs with an access key id of its own (tests/setup/table-env.ts).
    expect(c.accessKeyId).toMatch(new RegExp(`^\\*+${(process.env.SERVICE_CLOUD_ACCESS_KEY_ID as string).slice(-4)}$`));
    expect(res.raw).not.toContain(process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY);
    expect(res.raw).not.toContain(process.env.SERVICE_CLOUD_ACCESS_KEY_ID);
    expect(c.authMethod).toContain('SigV4');
    expect(c.curlExample).toContain('--aws-sigv4 "aws:amz:us-east-1:bedrock"');
    expect(c.nodeExample).toContain('@aws-sdk/client-bedrock');
    expect(c.pythonExample).toContain("boto3.client('bedrock'");
  });

  test('the hosted key is masked and the examples read it from the environment', async () => {
    const { token } = await makeUser('admin');
    const res = await call(nvidiaCredentials as Handler, { token });
    const c = res.body.credentials;
    expect(c.apiKey).not.toContain(process.env.HOSTED_API_KEY);
    expect(res.raw).not.toContain(process.env.HOSTED_API_KEY);
    expect(c.baseUrl).toBe(process.env.HOSTED_BASE_URL);
    expect(c.endpoint).toBe(`${process.env.HOSTED_BASE_URL}/chat/completions`);
    expect(c.curlExample).toContain('$HOSTED_API_KEY');
  });
});

describe('query conversion', () => {
  test.each(['2.5', 'true', '1e2', ' 3', '0x10'])('a limit of %j is 400, not silently converted', async (limit) => {
    const { token } = await makeUser('super_admin');
    const res = await call(listUsers as Handler, { token, query: { limit } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("'limit'");
  });
});

describe('tokens re-signed with changed claims', () => {
  const resign = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('24h')
      .sign(new TextEncoder().encode(process.env.JWT_SECRET));

  test('a validly signed token claiming super_admin for a user grants nothing: the stored role decides', async () => {
    const { user } = await makeUser('user');
    const forged = await resign({ userId: user.id, username: user.username, role: 'super_admin' });
    expect((await call(awsCredentials as Handler, { token: forged })).status).toBe(403);
    expect((await call(listUsers as Handler, { token: forged })).status).toBe(403);
  });

  test('a validly signed token naming a user id that does not exist is 401', async () => {
    const forged = await resign({ userId: '11111111-2222-4333-8444-555555555555', username: 'ghost', role: 'super_admin' });
    expect((await call(awsCredentials as Handler, { token: forged })).status).toBe(401);
  });
});
