import { config } from '../../core/config';
import { Forbidden, NotFound, TooManyRequests, Unauthorized } from '../errors';
import { MetricUnit, metrics } from '../../core/observability';
import {
  clearAccountAttempts,
  clearSubjectAttempts,
  getAddressAttempts,
  getSlot,
  getSubjectAttempts,
  holdSlot,
  releaseAddressAttempt,
  releaseSubjectAttempt,
  reserveAddressAttempt,
  reserveSubjectAttempt,
  takeSlot,
  type LoginSubject,
} from '../../tables/login-attempts';
import { getLoginCandidate, getUserById, publicUser, recordLogin, userOfCandidate, type User } from '../../tables/users';
import { verifyPassword } from './passwords';
import { issueToken, tokensValidFromMs } from './tokens';

const INVALID = 'Invalid username or password';
const THROTTLED = 'Too many failed login attempts; try again later';

export interface LoginAttempt {
  login: string;
  password: string;
  /** The caller's address (API Gateway's requestContext.http.sourceIp); absent outside HTTP. */
  sourceIp?: string;
}

/**
 * How long an address waits before its next attempt on an account (or a name that is no account) that
 * has `failures` failures: nothing up to LOGIN_MAX_FAILURES, then 1 s, doubling with every further
 * failure, up to LOGIN_MAX_DELAY_SECONDS. So one address gets no more than about 3600 / the maximum
 * delay guesses an hour on one account (OWASP ASVS v4 2.2.1 asks for at most 100), and the owner, from
 * their own address, gets in with the right password: a slowdown, not a lockout.
 */
export function delayAfterMs(failures: number): number {
  const { loginMaxFailures, loginMaxDelaySeconds } = config.auth;
  if (failures < loginMaxFailures) return 0;
  return Math.min(2 ** Math.min(failures - loginMaxFailures, 30), loginMaxDelaySeconds) * 1000;
}

const throttled = (retryAfterMs: number) => {
  metrics.addMetric('LoginsThrottled', MetricUnit.Count, 1);
  return new TooManyRequests(THROTTLED, Math.max(1, Math.ceil(retryAfterMs / 1000)));
};

/**
 * docs/security.md: look the user up by e-mail or username, verify the bcrypt hash, issue the token.
 *
 * Unknown users, wrong passwords and deactivated accounts all cost one bcrypt compare and get the
 * same answer, so neither timing nor text tells whether an account exists.
 *
 * Repeated failures are slowed down (429 with Retry-After: the one place where the service limits
 * rates), counted two ways:
 *   - per account, whichever name reached it (its username and its e-mail share one count; a name
 *     that is no account has a count of its own, handled exactly alike): after LOGIN_MAX_FAILURES,
 *     each source address waits a growing delay (delayAfterMs) between its attempts on the account,
 *     one attempt per delay however many it sends together, the right password included, so the wait
 *     does not reveal it. The wait is kept per (account, address): an attacker who takes every slot
 *     the moment it opens holds back only their own address, and the owner, from an address with no
 *     recent failures on the account, keeps a slot of their own (and an admin can clear the account's
 *     failures: clearLoginFailures);
 *   - per source address, across names: LOGIN_ADDRESS_MAX_FAILURES attempts within the window hold
 *     that address back until the window ends. That stops one address trying one password on many
 *     accounts, which the per-account count never sees.
 * Each attempt is counted on both before the hash, by a conditional ADD that holds only while the count
 * allows one more, so attempts that arrive together cannot all get past a count that each read as
 * low: of 1,000 parallel guesses, LOGIN_MAX_FAILURES reach bcrypt. A successful attempt is taken off
 * the address's count and clears the account's.
 *
 * DynamoDB rounds before the hash: the name guard (which carries copies of the hash and the
 * activation, tables/users.ts) with the address's count; the account's, which needs the account the
 * guard names (and, once it waits, the address's slot on it); then the reservation, all writes in one
 * round. Known and unknown names take the same rounds. The user item, needed for the answer and the
 * token's role, is read while bcrypt runs; it is the source of truth, so a user it shows deactivated
 * is refused whatever the guard's copy says.
 */
export async function login(attempt: LoginAttempt, now = Date.now()): Promise<{ token: string; user: User }> {
  const { loginFailureWindowSeconds: window, loginAddressMaxFailures, loginMaxFailures } = config.auth;
  // PASSWORD_LOGIN=false: single sign-on is the only way in (config.ts refuses it without SSO).
  if (!config.auth.passwordLogin) throw new Forbidden('Password login is turned off: log in with single sign-on');
  const nowSeconds = Math.floor(now / 1000);
  const { login: loginName, password, sourceIp } = attempt;

  const [candidate, address] = await Promise.all([
    getLoginCandidate(loginName),
    sourceIp ? getAddressAttempts(sourceIp, nowSeconds, window) : undefined,
  ]);
  const addressWait = () => (address ? address.firstAt + window - nowSeconds : 1) * 1000;
  if (address && address.count >= loginAddressMaxFailures) throw throttled(addressWait());
  const subject: LoginSubject = candidate ? { kind: 'user', userId: candidate.userId } : { kind: 'name', login: loginName };
  const seen = await getSubjectAttempts(subject, now, window);
  const count = seen?.count ?? 0;
  // Past the threshold, the address's own slot on the account decides.
  const waits = delayAfterMs(count) > 0;
  if (waits) {
    const notBefore = await getSlot(subject, sourceIp);
    if (now < notBefore) throw throttled(notBefore - now);
  }

  // The reservation: this attempt counted on the account (below the threshold, only while the count is
  // below it) and on the address, and past the threshold the address's slot taken, before the hash.
  const [counted, addressWindow, slot] = await Promise.all([
    reserveSubjectAttempt(subject, seen !== undefined, waits ? undefined : loginMaxFailures, now, window),
    sourceIp ? reserveAddressAttempt(sourceIp, address, loginAddressMaxFailures, nowSeconds, window) : null,
    waits ? takeSlot(subject, sourceIp, now, now + delayAfterMs(count + 1), window) : true,
  ]);
  if (counted === undefined || addressWindow === undefined || !slot) {
    await Promise.all([
      counted !== undefined && releaseSubjectAttempt(subject),
      sourceIp && addressWindow ? releaseAddressAttempt(sourceIp, addressWindow) : undefined,
    ]);
    throw throttled(addressWindow === undefined ? addressWait() : delayAfterMs(Math.max(count + 1, loginMaxFailures)));
  }

  const [user, passwordOk] = await Promise.all([
    candidate ? userOfCandidate(candidate) : undefined,
    verifyPassword(password, candidate?.password_hash),
  ]);
  if (!candidate || !user || !passwordOk || !candidate.is_active || !user.is_active) {
    // The attempt is counted already; the address waits before its next one once the account is past the threshold.
    if (delayAfterMs(counted) > 0) await holdSlot(subject, sourceIp, now + delayAfterMs(counted), now, window);
    metrics.addMetric('LoginsFailed', MetricUnit.Count, 1);
    throw new Unauthorized(INVALID);
  }

  metrics.addMetric('LoginsSucceeded', MetricUnit.Count, 1);
  // Right after a revocation, a token stamped with the revoked second would be refused: wait for the next.
  const issuedAt = Math.max(now, tokensValidFromMs(user.tokens_valid_after));
  if (issuedAt > now) await new Promise((resolve) => setTimeout(resolve, Math.min(issuedAt - now, 1000)));
  const at = new Date(now).toISOString();
  const [token] = await Promise.all([
    issueToken(user, issuedAt),
    recordLogin(user.id, at),
    clearSubjectAttempts(subject, sourceIp),
    sourceIp && addressWindow ? releaseAddressAttempt(sourceIp, addressWindow) : undefined,
  ]);
  return { token, user: { ...publicUser(user), last_login: at } };
}

/**
 * An admin's way out for an account held back by failed logins (audited by its endpoint): forgets its
 * failures and every address's wait on it, so the next attempt from anywhere goes ahead at once.
 * The addresses' own counts stay: they hold back the sources, not the account.
 */
export async function clearLoginFailures(userId: string): Promise<{ failures_cleared: number }> {
  if (!(await getUserById(userId))) throw new NotFound('User not found');
  return { failures_cleared: await clearAccountAttempts(userId) };
}
