/**
 * The login throttle (issue 26, item 5): failures are counted per account (its username and e-mail
 * alike) and per source address; an account that keeps failing is slowed down by a growing delay,
 * not locked, so its owner gets in once the delay has passed; an address that fails across many
 * names is held back for the rest of its window. Times are given to login() explicitly, so nothing
 * here depends on how fast the machine is.
 */
import { handler as loginHandler } from '../../functions/auth/login';
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
  test('after the attacker’s failures the owner, from their own address, is asked to wait, then gets in with the right password', async () => {
    const { user } = await makeUser('user');
    const t0 = freshTime();
    await fail(user.username, MAX_FAILURES, freshIp(), t0);
    // The tenth failure came at t0 + 9 ms (each of the first nine allowed the next at once).
    const lastFailure = t0 + MAX_FAILURES - 1;
    const owner = freshIp();
    expect(await attempt(user.username, PASSWORD, owner, lastFailure + 300)).toEqual({ status: 429, retryAfter: 1 });
    expect(await attempt(user.username, PASSWORD, owner, lastFailure + 1_000)).toEqual({ status: 200 });
  });

  test('the right password is refused while the account waits, as a wrong one is: the answer does not reveal it', async () => {
    const { user } = await makeUser('user');
    const t = await fail(user.username, MAX_FAILURES, freshIp(), freshTime());
    expect(await attempt(user.username, PASSWORD, freshIp(), t - 500)).toMatchObject({ status: 429 });
    expect(await attempt(user.username, 'still-wrong', freshIp(), t - 500)).toMatchObject({ status: 429 });
  });

  test('the username and the e-mail of one account share one count', async () => {
    const { user } = await makeUser('user');
    const ip = freshIp();
    const t = await fail(user.username, MAX_FAILURES / 2, ip, freshTime());
    const u = await fail(user.email, MAX_FAILURES / 2, ip, t);
    // Ten failures on the account, whichever name was typed: the next attempt waits, by either name.
    expect(await attempt(user.email, PASSWORD, freshIp(), u - 1_000)).toMatchObject({ status: 429 });
    expect(await attempt(user.username, PASSWORD, freshIp(), u - 1_000)).toMatchObject({ status: 429 });
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

  test('of the attempts that arrive together once the wait is over, exactly one goes ahead', async () => {
    const { user } = await makeUser('user');
    const t = await fail(user.username, MAX_FAILURES, freshIp(), freshTime());
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => attempt(user.username, `guess-${i}`, freshIp(), t)));
    expect(outcomes.filter((o) => o.status === 401)).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 429)).toHaveLength(5);
  });

  test('a name that is no account is counted and slowed down exactly like one, and answers alike', async () => {
    const { user } = await makeUser('user');
    const ghost = `ghost-${user.username}`;
    const tu = await fail(user.username, MAX_FAILURES, freshIp(), freshTime());
    const tg = await fail(ghost, MAX_FAILURES, freshIp(), freshTime());
    expect(await attempt(ghost, 'wrong', freshIp(), tg - 500)).toEqual(await attempt(user.username, 'wrong', freshIp(), tu - 500));
    expect(await attempt(ghost, 'wrong', freshIp(), tg)).toEqual({ status: 401 });
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
