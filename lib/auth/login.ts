import { config } from '../../core/config';
import { Forbidden, TooManyRequests, Unauthorized } from '../errors';
import { MetricUnit, metrics } from '../../core/observability';
import {
  claimAttempt,
  clearSubjectFailures,
  getAddressFailures,
  getSubjectFailures,
  recordAddressFailure,
  recordSubjectFailure,
  type LoginSubject,
} from '../../tables/login-attempts';
import { getLoginCandidate, publicUser, recordLogin, userOfCandidate, type User } from '../../tables/users';
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
 * How long an account (or a name that is no account) waits before its next attempt, after `failures`
 * failures: nothing up to LOGIN_MAX_FAILURES, then 1 s, doubling with every further failure, up to
 * LOGIN_MAX_DELAY_SECONDS. So an attacker gets no more than about 3600 / the maximum delay guesses an
 * hour on one account (OWASP ASVS v4 2.2.1 asks for at most 100), and its owner, once the wait is
 * over, gets in with the right password: a slowdown, not a lockout.
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
 * README, Security: look the user up by e-mail or username, verify the bcrypt hash, issue the token.
 *
 * Unknown users, wrong passwords and deactivated accounts all cost one bcrypt compare and get the
 * same answer, so neither timing nor text tells whether an account exists.
 *
 * Repeated failures are slowed down (429 with Retry-After: the one place where the service limits
 * rates), counted two ways:
 *   - per account, whichever name reached it (its username and its e-mail share one count; a name
 *     that is no account has a count of its own, handled exactly alike): after LOGIN_MAX_FAILURES,
 *     every further attempt waits a growing delay (delayAfterMs), one attempt per delay however many
 *     arrive together (claimAttempt), the right password included, so the wait does not reveal it;
 *   - per source address, across names: LOGIN_ADDRESS_MAX_FAILURES failures within the window hold
 *     that address back until the window ends. Stricter, since it stops one address trying one
 *     password on many accounts, which the per-account count never sees; and it holds back the
 *     attacker's address, not the owner's.
 * A successful login forgets the account's failures (not the address's).
 *
 * Two DynamoDB rounds before the hash: the name guard (which carries copies of the hash and the
 * activation, tables/users.ts) with the address's failures, then the account's failures, which need
 * the account the guard names. Known and unknown names take the same rounds. The user item, needed for
 * the answer and the token's role, is read while bcrypt runs; it is the source of truth, so a user it
 * shows deactivated is refused whatever the guard's copy says.
 */
export async function login(attempt: LoginAttempt, now = Date.now()): Promise<{ token: string; user: User }> {
  const { loginFailureWindowSeconds: window, loginAddressMaxFailures } = config.auth;
  // PASSWORD_LOGIN=false: single sign-on is the only way in (config.ts refuses it without SSO).
  if (!config.auth.passwordLogin) throw new Forbidden('Password login is turned off: log in with single sign-on');
  const nowSeconds = Math.floor(now / 1000);
  const { login: loginName, password, sourceIp } = attempt;

  const [candidate, address] = await Promise.all([
    getLoginCandidate(loginName),
    sourceIp ? getAddressFailures(sourceIp, nowSeconds, window) : undefined,
  ]);
  const subject: LoginSubject = candidate ? { kind: 'user', userId: candidate.userId } : { kind: 'name', login: loginName };
  const failures = await getSubjectFailures(subject, now, window);

  if (address && address.count >= loginAddressMaxFailures) throw throttled((address.firstAt + window - nowSeconds) * 1000);
  const count = failures?.count ?? 0;
  if (failures && delayAfterMs(count) > 0) {
    if (now < failures.notBefore) throw throttled(failures.notBefore - now);
    // The attempt the wait allows, taken before the hash; if it fails, the next one waits longer.
    if (!(await claimAttempt(subject, failures.notBefore, now + delayAfterMs(count + 1)))) throw throttled(delayAfterMs(count + 1));
  }

  const [user, passwordOk] = await Promise.all([
    candidate ? userOfCandidate(candidate) : undefined,
    verifyPassword(password, candidate?.password_hash),
  ]);
  if (!candidate || !user || !passwordOk || !candidate.is_active || !user.is_active) {
    const next = count + 1;
    await Promise.all([
      recordSubjectFailure(subject, now, delayAfterMs(next) > 0 ? now + delayAfterMs(next) : 0, window),
      sourceIp ? recordAddressFailure(sourceIp, nowSeconds, window) : undefined,
    ]);
    metrics.addMetric('LoginsFailed', MetricUnit.Count, 1);
    throw new Unauthorized(INVALID);
  }

  metrics.addMetric('LoginsSucceeded', MetricUnit.Count, 1);
  // Right after a revocation, a token stamped with the revoked second would be refused: wait for the next.
  const issuedAt = Math.max(now, tokensValidFromMs(user.tokens_valid_after));
  if (issuedAt > now) await new Promise((resolve) => setTimeout(resolve, Math.min(issuedAt - now, 1000)));
  const at = new Date(now).toISOString();
  const [token] = await Promise.all([issueToken(user, issuedAt), recordLogin(user.id, at), failures ? clearSubjectFailures(subject) : undefined]);
  return { token, user: { ...publicUser(user), last_login: at } };
}
