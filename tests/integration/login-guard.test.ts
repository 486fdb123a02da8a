import bcrypt from 'bcryptjs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { handler as login } from '../../functions/auth/login';
import { handler as createUser } from '../../functions/admin/create-user';
import { handler as updateUser } from '../../functions/admin/update-user';
import { TABLE, db } from '../../tables/client';
import { getUserById, updateUser as updateStoredUser } from '../../tables/users';
import { DbMeter, type CallRecord } from '../../bench/harness';
import { call, type Handler } from '../helpers/invoke';
import { PASSWORD, makeUser } from '../helpers/users';

/*
 * Login reads the name guard, which carries copies of the hash and the activation, instead of the
 * guard and then the user. These tests pin that the copies follow every change of the user, that
 * guards written before the copies existed still work, and that only one DynamoDB round precedes
 * the bcrypt compare.
 *
 * The guard keys are spelled out here (rather than imported) on purpose: the old-style guards are
 * written as the previous code wrote them.
 */

const post = (username: string, password: string) =>
  call(login as Handler, { method: 'POST', path: '/api/auth/login', body: { username, password } });
const patch = (userId: string, token: string, body: Record<string, unknown>) =>
  call(updateUser as Handler, { method: 'PATCH', pathParameters: { userId }, token, body });
const guardKeys = (user: { username: string; email: string }) => [
  { PK: `USERNAME#${user.username.toLowerCase()}`, SK: 'UNIQUE' },
  { PK: `EMAIL#${user.email.toLowerCase()}`, SK: 'UNIQUE' },
];
const read = async (Key: Record<string, string>) => (await db.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true }))).Item;

let admin: string;
beforeAll(async () => {
  admin = (await makeUser('super_admin')).token;
});

describe('the name guards carry what login needs', () => {
  test('a created user can log in by username and by e-mail, and both guards hold the hash and is_active', async () => {
    const created = await call(createUser as Handler, {
      method: 'POST',
      token: admin,
      body: { username: 'Guarded-One', email: 'Guarded-One@example.com', name: 'G', role: 'user', password: 'first-password' },
    });
    expect(created.status).toBe(201);
    const user = created.body.user;
    const stored = await read({ PK: `USER#${user.id}`, SK: 'PROFILE' });
    for (const key of guardKeys(user)) {
      expect(await read(key)).toEqual({ ...key, userId: user.id, password_hash: stored?.password_hash, is_active: true });
    }
    expect((await post('guarded-one', 'first-password')).status).toBe(200);
    expect((await post('GUARDED-ONE@example.com', 'first-password')).status).toBe(200);
  });

  test('after a password reset the old password fails and the new one works, by username and by e-mail', async () => {
    const { user } = await makeUser('user');
    expect((await patch(user.id, admin, { password: 'the-new-password' })).status).toBe(200);
    for (const name of [user.username, user.email]) {
      const old = await post(name, PASSWORD);
      expect(old.status).toBe(401);
      expect(old.body).toEqual({ success: false, message: 'Invalid username or password' });
      expect((await post(name, 'the-new-password')).status).toBe(200);
    }
  });

  test('a deactivated user is refused by username and by e-mail, and can log in again once reactivated', async () => {
    const { user } = await makeUser('user');
    expect((await patch(user.id, admin, { is_active: false })).status).toBe(200);
    for (const key of guardKeys(user)) expect((await read(key))?.is_active).toBe(false);
    for (const name of [user.username, user.email]) {
      const res = await post(name, PASSWORD);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, message: 'Invalid username or password' });
    }
    expect((await patch(user.id, admin, { is_active: true })).status).toBe(200);
    for (const name of [user.username, user.email]) expect((await post(name, PASSWORD)).status).toBe(200);
  });

  test('a change of role or name leaves the guards as they were', async () => {
    const { user } = await makeUser('user');
    const before = await Promise.all(guardKeys(user).map(read));
    expect((await patch(user.id, admin, { role: 'admin', name: 'Renamed' })).status).toBe(200);
    expect(await Promise.all(guardKeys(user).map(read))).toEqual(before);
    expect((await post(user.username, PASSWORD)).status).toBe(200);
  });

  test('the user item decides: a user it shows deactivated is refused even when the guard copy says active', async () => {
    const { user } = await makeUser('user');
    const [usernameGuard] = guardKeys(user);
    const active = await read(usernameGuard!);
    expect((await patch(user.id, admin, { is_active: false })).status).toBe(200);
    await db.send(new PutCommand({ TableName: TABLE, Item: active }));
    expect((await read(usernameGuard!))?.is_active).toBe(true);
    expect((await post(user.username, PASSWORD)).status).toBe(401);
  });
});

describe('updates that write the guards too', () => {
  test('an activation change from a stale read is a 409 "changed by another request" and writes neither the user nor the guards', async () => {
    const { user } = await makeUser('user');
    const stale = (await getUserById(user.id))!;
    expect((await patch(user.id, admin, { is_active: false })).status).toBe(200);
    const guardsBefore = await Promise.all(guardKeys(user).map(read));
    await expect(updateStoredUser(stale, { is_active: false, password_hash: 'not-a-hash' }, new Date().toISOString())).rejects.toThrow(
      'The user was changed by another request; read it again and retry',
    );
    expect((await getUserById(user.id))?.password_hash).toBe(stale.password_hash);
    expect(await Promise.all(guardKeys(user).map(read))).toEqual(guardsBefore);
  });

  test('a guard that does not point at the user makes the update fail as a whole', async () => {
    const { user } = await makeUser('user');
    const [usernameGuard] = guardKeys(user);
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...usernameGuard, userId: 'someone-else' } }));
    const current = (await getUserById(user.id))!;
    await expect(updateStoredUser(current, { is_active: false }, new Date().toISOString())).rejects.toThrow(/do not point at it/);
    expect((await getUserById(user.id))?.is_active).toBe(true);
  });
});

describe('guards written before the copies existed', () => {
  const makeOldStyle = async () => {
    const { user } = await makeUser('user');
    for (const key of guardKeys(user)) await db.send(new PutCommand({ TableName: TABLE, Item: { ...key, userId: user.id } }));
    return user;
  };

  test('a user whose guards hold only userId logs in by username and by e-mail, and a wrong password is still 401', async () => {
    const user = await makeOldStyle();
    expect((await post(user.username, PASSWORD)).status).toBe(200);
    expect((await post(user.email, PASSWORD)).status).toBe(200);
    expect((await post(user.username, 'not-the-password')).status).toBe(401);
  });

  test('an old-style guard of a deactivated user is refused', async () => {
    const user = await makeOldStyle();
    expect((await patch(user.id, admin, { is_active: false })).status).toBe(200);
    expect((await post(user.username, PASSWORD)).status).toBe(401);
  });

  test('a password reset fills in the copies of old-style guards', async () => {
    const user = await makeOldStyle();
    expect((await patch(user.id, admin, { password: 'reset-old-style' })).status).toBe(200);
    for (const key of guardKeys(user))
      expect(await read(key)).toMatchObject({ userId: user.id, password_hash: expect.stringMatching(/^\$2/), is_active: true });
    expect((await post(user.username, PASSWORD)).status).toBe(401);
    expect((await post(user.email, 'reset-old-style')).status).toBe(200);
  });
});

describe('DynamoDB round trips of a login', () => {
  // The benchmark's meter (bench/harness.ts) records every call through the service's client; a
  // call-through wrapper on bcrypt.compare notes when the compare starts and ends. Nothing is replaced.
  const meter = new DbMeter();
  const original = bcrypt.compare;
  let compares: { started: number; ended?: number }[] = [];

  beforeAll(() => {
    meter.install(db);
    meter.record = true;
    // verifyPassword calls compare(password, hash) and awaits the promise.
    bcrypt.compare = async (password: string, hash: string) => {
      const mark: { started: number; ended?: number } = { started: performance.now() };
      compares.push(mark);
      try {
        return await original(password, hash);
      } finally {
        mark.ended = performance.now();
      }
    };
  });
  afterAll(() => {
    bcrypt.compare = original;
    db.middlewareStack.remove('benchDbMeter');
  });

  const measured = async (name: string, password: string) => {
    compares = [];
    const { result, meter: snap } = await meter.measure(() => post(name, password));
    return { status: result.status, records: snap.records, compares };
  };
  const pkOf = (r: CallRecord) => String(r.input.Key?.PK ?? r.input.Item?.PK);

  test('a successful login makes two rounds of reads before the compare (the guard with the address’s count, then the account’s), then counts the attempt on both, and reads the user during it', async () => {
    const { user } = await makeUser('user');
    await post(user.username, PASSWORD); // the first compare of a module also makes the dummy hash
    const { status, records, compares: seen } = await measured(user.username, PASSWORD);
    expect(status).toBe(200);
    expect(seen).toHaveLength(1);
    const compare = seen[0]!;

    const before = records.filter((r) => r.ended <= compare.started);
    expect(before.map((r) => `${r.command} ${pkOf(r)}`).sort()).toEqual(
      [
        `GetItemCommand LOGINFAIL#ADDR#127.0.0.1`,
        `GetItemCommand USERNAME#${user.username.toLowerCase()}`,
        `GetItemCommand LOGINFAIL#USER#${user.id}`,
        // The reservation (issue 33, item 5): the account's count opened (the last success cleared it), the address's counted into.
        `PutItemCommand LOGINFAIL#USER#${user.id}`,
        `UpdateItemCommand LOGINFAIL#ADDR#127.0.0.1`,
      ].sort(),
    );
    const writes = before.filter((r) => r.command !== 'GetItemCommand');
    // Both counts in one round, after the reads.
    expect(Math.max(...writes.map((w) => w.started))).toBeLessThan(Math.min(...writes.map((w) => w.ended)));
    const [guard, addr, account] = ['USERNAME#', 'LOGINFAIL#ADDR#', 'LOGINFAIL#USER#'].map((p) =>
      before.find((r) => pkOf(r).startsWith(p)),
    ) as CallRecord[];
    // The guard and the address's failures were in flight together; the account's came after the guard.
    expect(Math.max(guard!.started, addr!.started)).toBeLessThan(Math.min(guard!.ended, addr!.ended));
    expect(account!.started).toBeGreaterThanOrEqual(guard!.ended);

    const userReads = records.filter((r) => pkOf(r) === `USER#${user.id}` && r.command === 'GetItemCommand');
    expect(userReads).toHaveLength(1);
    expect(userReads[0]!.started).toBeLessThan(compare.ended!);
    expect(userReads[0]!.ended).toBeGreaterThan(compare.started);
  });

  test('an unknown name costs one compare, reads no user, and makes the same rounds as a known one', async () => {
    const { status, records, compares: seen } = await measured('nobody-by-this-name', 'whatever-it-is');
    expect(status).toBe(401);
    expect(seen).toHaveLength(1);
    expect(
      records
        .filter((r) => r.ended <= seen[0]!.started)
        .map(pkOf)
        .sort(),
    ).toEqual(
      [
        'LOGINFAIL#ADDR#127.0.0.1',
        'LOGINFAIL#ADDR#127.0.0.1',
        'LOGINFAIL#NAME#nobody-by-this-name',
        'LOGINFAIL#NAME#nobody-by-this-name',
        'USERNAME#nobody-by-this-name',
      ].sort(),
    );
    expect(records.some((r) => pkOf(r).startsWith('USER#'))).toBe(false);
  });
});
