/**
 * The login throttle (issue 26, item 5; issue 33, items 4 and 5): failures are counted per account
 * (its username and e-mail alike) and per source address; an account that keeps failing slows each
 * address down by a growing delay between its attempts, not locked, so its owner, from their own
 * address, gets in; an address that fails across many names is held back for the rest of its window.
 * Every attempt is counted on both before its hash, so parallel guesses cannot all reach bcrypt.
 * Times are given to login() explicitly, so nothing here depends on how fast the machine is.
 */
import { jest } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { handler as loginHandler } from '../../functions/auth/login';
import { handler as clearFailures } from '../../functions/admin/clear-login-failures';
import { handler as listAudit } from '../../functions/admin/list-audit';
import { delayAfterMs, login } from '../../lib/auth/login';
import { toHttpError } from '../../lib/http/errors';
import { call, type Handler } from '../helpers/invoke';
import { PASSWORD, makeUser } from '../helpers/users';

// The configuration the tests run with (core/config.ts defaults).
const MAX_FAILURES = 10;
const MAX_DELAY_MS = 60_000;
const ADDRESS_MAX_FAILURES = 30;
const WINDOW_MS = 900_000;

let address = 0;
/** A source address no other test uses. */
const freshIp = () => `198.51.100.${++address}`;
/** A time far from every other test's, so that no window of another test is open at it. */
let era = Date.UTC(2030, 0, 1);
const freshTime = () => (era += 10 * WINDOW_MS);

type Outcome = { status: 200 } | { status: 401 } | { status: 429; retryAfter: number };
async function attempt(loginName: string, password: string, sourceIp: string, now: number): Promise<Outcome> {
  try {
    await login({ login: loginName, password, sourceIp }, now);
    return { status: 200 };
  } catch (err) {
    // What the client gets: the error's HTTP form (lib/http/errors.ts).
    const http = toHttpError(err);
    if (!http) throw err;
    if (http.statusCode === 429) return { status: 429, retryAfter: Number(http.headers['Retry-After']) };
    return { status: http.statusCode as 401 };
  }
}

/** `n` wrong guesses, each as soon as the throttle allows it; returns the time after the last one. */
async function fail(loginName: string, n: number, sourceIp: string, from: number): Promise<number> {
  let now = from;
  for (let i = 0; i < n; i++) {
    const out = await attempt(loginName, `wrong-${i}`, sourceIp, now);
    expect(out.status).toBe(401);
    now += delayAfterMs(i + 1) + 1;
  }
  return now;
}

test('the delay is none up to the limit, then 1 s doubling with each failure, up to the maximum', () => {
  expect([9, 10, 11, 12, 15, 16, 17, 100].map(delayAfterMs)).toEqual([0, 1_000, 2_000, 4_000, 32_000, MAX_DELAY_MS, MAX_DELAY_MS, MAX_DELAY_MS]);
});

describe('per account', () => {
  test('after the attacker’s failures their address waits, then may try again; the owner, from their own address, gets in at once', async () => {
    const { user } = await makeUser('user');
    const t0 = freshTime();
    const attacker = freshIp();
    await fail(user.username, MAX_FAILURES, attacker, t0);
    // The tenth failure came at t0 + 9 ms (each of the first nine allowed the next at once).
    const lastFailure = t0 + MAX_FAILURES - 1;
    expect(await attempt(user.username, 'guess', attacker, lastFailure + 300)).toEqual({ status: 429, retryAfter: 1 });
    expect(await attempt(user.username, PASSWORD, freshIp(), lastFailure + 300)).toEqual({ status: 200 });
  });

  test('an attacker who takes every slot the moment it opens keeps out only their own address, never the owner', async () => {
    const { user } = await makeUser('user');
    const attacker = freshIp();
    const owner = freshIp();
    let now = await fail(user.username, MAX_FAILURES, attacker, freshTime());
    for (let i = 0; i < 6; i++) {
      // The attacker's slot has just opened and is taken (and fails); the owner, a moment later, is not held back by it.
      expect((await attempt(user.username, `guess-${i}`, attacker, now)).status).toBe(401);
      expect((await attempt(user.username, 'owner-typo', owner, now + 1)).status).toBe(401);
      expect((await attempt(user.username, `again-${i}`, attacker, now + 2)).status).toBe(429);
      now += delayAfterMs(MAX_FAILURES + 2 * i + 2) + 1;
    }
    // The owner's own typos made their address wait too, but only as long as its last failure says.
    expect((await attempt(user.username, PASSWORD, owner, now + MAX_DELAY_MS)).status).toBe(200);
  });

  test('the right password is refused while the address waits, as a wrong one is: the answer does not reveal it', async () => {
    const { user } = await makeUser('user');
    const ip = freshIp();
    const t = await fail(user.username, MAX_FAILURES, ip, freshTime());
    expect(await attempt(user.username, PASSWORD, ip, t - 500)).toMatchObject({ status: 429 });
    expect(await attempt(user.username, 'still-wrong', ip, t - 500)).toMatchObject({ status: 429 });
  });

  test('the username and the e-mail of one account share one count', async () => {
    const { user } = await makeUser('user');
    const ip = freshIp();
    const t = await fail(user.username, MAX_FAILURES / 2, ip, freshTime());
    const u = await fail(user.email, MAX_FAILURES / 2, ip, t);
    // Ten failures on the account, whichever name was typed: the next attempt waits, by either name.
    expect(await attempt(user.email, PASSWORD, ip, u - 1_000)).toMatchObject({ status: 429 });
    expect(await attempt(user.username, PASSWORD, ip, u - 1_000)).toMatchObject({ status: 429 });
  });

  test('each further failure doubles the wait, up to the maximum', async () => {
    const { user } = await makeUser('user');
    const ip = freshIp();
    // The time of the tenth failure.
    let last = (await fail(user.username, MAX_FAILURES, ip, freshTime())) - delayAfterMs(MAX_FAILURES) - 1;
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const early = await attempt(user.username, 'wrong', ip, last + 1);
      expect(early.status).toBe(429);
      waits.push((early as { retryAfter: number }).retryAfter);
      // Once the wait is over, the next attempt goes ahead (and fails).
      const allowed = last + delayAfterMs(MAX_FAILURES + i);
      expect((await attempt(user.username, 'wrong', ip, allowed)).status).toBe(401);
      last = allowed;
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
  });

  test('of the attempts one address sends together once its wait is over, exactly one goes ahead', async () => {
    const { user } = await makeUser('user');
    const ip = freshIp();
    const t = await fail(user.username, MAX_FAILURES, ip, freshTime());
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => attempt(user.username, `guess-${i}`, ip, t)));
    expect(outcomes.filter((o) => o.status === 401)).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 429)).toHaveLength(5);
  });

  test('a name that is no account is counted and slowed down exactly like one, and answers alike', async () => {
    const { user } = await makeUser('user');
    const ghost = `ghost-${user.username}`;
    const [ipu, ipg] = [freshIp(), freshIp()];
    const tu = await fail(user.username, MAX_FAILURES, ipu, freshTime());
    const tg = await fail(ghost, MAX_FAILURES, ipg, freshTime());
    expect(await attempt(ghost, 'wrong', ipg, tg - 500)).toEqual(await attempt(user.username, 'wrong', ipu, tu - 500));
    expect(await attempt(ghost, 'wrong', ipg, tg)).toEqual({ status: 401 });
  });

  test('a successful login forgets the account’s failures', async () => {
    const { user } = await makeUser('user');
    const ip = freshIp();
    let t = await fail(user.username, MAX_FAILURES - 1, ip, freshTime());
    expect((await attempt(user.username, PASSWORD, ip, t)).status).toBe(200);
    t = await fail(user.username, MAX_FAILURES - 1, ip, t + 1);
    expect((await attempt(user.username, PASSWORD, ip, t)).status).toBe(200);
  });

  test('failures are forgotten a window after the last one', async () => {
    const { user } = await makeUser('user');
    const t = await fail(user.username, MAX_FAILURES + 3, freshIp(), freshTime());
    const last = t - delayAfterMs(MAX_FAILURES + 3) - 1;
    expect((await attempt(user.username, 'wrong', freshIp(), last + WINDOW_MS)).status).toBe(401);
    // Counting starts over: nine more failures allow the next attempt at once.
    const u = await fail(user.username, MAX_FAILURES - 2, freshIp(), last + WINDOW_MS + 1);
    expect((await attempt(user.username, PASSWORD, freshIp(), u)).status).toBe(200);
  });
});

describe('parallel guesses (each attempt counted before its hash)', () => {
  // A call-through wrapper on bcrypt.compare counts the guesses that reach it; nothing is replaced.
  const original = bcrypt.compare;
  let compares = 0;
  beforeAll(() => {
    bcrypt.compare = async (password: string, hash: string) => {
      compares++;
      return original(password, hash);
    };
  });
  afterAll(() => {
    bcrypt.compare = original;
  });
  jest.setTimeout(180_000);

  test('200 guesses at once on one account, each from its own address: only LOGIN_MAX_FAILURES reach bcrypt', async () => {
    const { user } = await makeUser('user');
    const t = freshTime();
    compares = 0;
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => attempt(user.username, `guess-${i}`, `203.0.${i >> 8}.${i & 255}`, t)));
    expect(compares).toBe(MAX_FAILURES);
    expect(outcomes.filter((o) => o.status === 401)).toHaveLength(MAX_FAILURES);
    expect(outcomes.filter((o) => o.status === 429)).toHaveLength(200 - MAX_FAILURES);
  });

  test('120 guesses at once from one address, each on its own name: only LOGIN_ADDRESS_MAX_FAILURES reach bcrypt', async () => {
    const ip = freshIp();
    const t = freshTime();
    compares = 0;
    const outcomes = await Promise.all(Array.from({ length: 120 }, (_, i) => attempt(`parallel-${t}-${i}`, 'Winter2030!', ip, t)));
    expect(compares).toBe(ADDRESS_MAX_FAILURES);
    expect(outcomes.filter((o) => o.status === 401)).toHaveLength(ADDRESS_MAX_FAILURES);
  });
});

describe('per source address', () => {
  test('an address failing on many names is held back until its window ends; the owners, from their addresses, are not', async () => {
    const attacker = freshIp();
    const t0 = freshTime();
    for (let i = 0; i < ADDRESS_MAX_FAILURES; i++) expect((await attempt(`sprayed-${t0}-${i}`, 'Winter2030!', attacker, t0 + i)).status).toBe(401);
    const { user } = await makeUser('user');
    const later = t0 + 60_000;
    expect(await attempt(user.username, PASSWORD, attacker, later)).toEqual({ status: 429, retryAfter: (WINDOW_MS - 60_000) / 1000 });
    expect(await attempt(user.username, PASSWORD, freshIp(), later)).toEqual({ status: 200 });
    expect(await attempt(user.username, PASSWORD, attacker, t0 + WINDOW_MS)).toEqual({ status: 200 });
  });

  test('a successful login does not forget the address’s failures', async () => {
    const attacker = freshIp();
    const t0 = freshTime();
    const { user } = await makeUser('user');
    for (let i = 0; i < ADDRESS_MAX_FAILURES - 1; i++) await attempt(`spray-${t0}-${i}`, 'x-password', attacker, t0 + i);
    expect((await attempt(user.username, PASSWORD, attacker, t0 + 100)).status).toBe(200);
    expect((await attempt(`spray-${t0}-last`, 'x-password', attacker, t0 + 101)).status).toBe(401);
    expect((await attempt(user.username, PASSWORD, attacker, t0 + 102)).status).toBe(429);
  });
});

describe('POST /api/auth/login', () => {
  const post = (username: string, password: string, sourceIp: string) =>
    call(loginHandler as Handler, { method: 'POST', path: '/api/auth/login', body: { username, password }, sourceIp });

  test('counts the failures of the address API Gateway reports (requestContext.http.sourceIp) and answers 429 with Retry-After', async () => {
    const attacker = freshIp();
    const tag = String(Date.now());
    for (let i = 0; i < ADDRESS_MAX_FAILURES; i++) expect((await post(`handler-spray-${tag}-${i}`, 'nope-nope', attacker)).status).toBe(401);
    const { user } = await makeUser('user');
    const refused = await post(user.username, PASSWORD, attacker);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, message: 'Too many failed login attempts; try again later' });
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThan(800);
    expect((await post(user.username, PASSWORD, freshIp())).status).toBe(200);
  });
});

describe('DELETE /api/admin/users/{userId}/login-failures', () => {
  const clear = (token: string, userId: string) => call(clearFailures as Handler, { method: 'DELETE', token, pathParameters: { userId } });

  test("a super_admin clears an account's failures: every address may try again at once, and the action is audited", async () => {
    const { user } = await makeUser('user');
    const { token } = await makeUser('super_admin');
    const ip = freshIp();
    const t = await fail(user.username, MAX_FAILURES + 2, ip, freshTime());
    expect((await attempt(user.username, 'wrong', ip, t - 1_000)).status).toBe(429);
    const cleared = await clear(token, user.id);
    expect(cleared).toMatchObject({ status: 200, body: { success: true, failures_cleared: MAX_FAILURES + 2 } });
    expect((await attempt(user.username, 'wrong', ip, t - 1_000)).status).toBe(401);
    const audit = await call(listAudit as Handler, { token, query: { limit: '100' } });
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ action: 'user.login_failures.clear', target: user.id, outcome: 'success', status: 200 }),
    );
  });

  test('is refused to a plain admin (403, audited as refused) and answers 404 for no such user', async () => {
    const { user } = await makeUser('user');
    const admin = await makeUser('admin');
    const { token: superAdmin } = await makeUser('super_admin');
    expect((await clear(admin.token, user.id)).status).toBe(403);
    expect((await clear(superAdmin, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const audit = await call(listAudit as Handler, { token: superAdmin, query: { limit: '100' } });
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ action: 'user.login_failures.clear', target: user.id, outcome: 'failure', status: 403 }),
    );
  });
});
