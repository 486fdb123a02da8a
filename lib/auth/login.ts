import { config } from '../../core/config';
import { TooManyRequests, Unauthorized } from '../http/errors';
import { MetricUnit, metrics } from '../../core/observability';
import { clearFailures, getFailures, recordFailure } from '../../tables/login-attempts';
import { getLoginCandidate, publicUser, recordLogin, userOfCandidate, type User } from '../../tables/users';
import { verifyPassword } from './passwords';
import { issueToken, tokensValidFromMs } from './tokens';

const INVALID = 'Invalid username or password';

/**
 * Spec 5.3: look the user up by e-mail or username, verify the bcrypt hash, issue the token.
 *
 * Unknown users, wrong passwords and deactivated accounts all cost one bcrypt compare and get the
 * same answer, so neither timing nor text tells whether an account exists. Repeated failures for one
 * login name are throttled (429 with Retry-After): the one place where the service limits rates.
 *
 * One DynamoDB round before the hash: the name guard (which carries copies of the hash and the
 * activation, tables/users.ts) alongside the failure window. The user item, needed for the answer
 * and the token's role, is read while bcrypt runs; it is the source of truth, so a user it shows
 * deactivated is refused whatever the guard's copy says.
 */
export async function login(loginName: string, password: string, now = Date.now()): Promise<{ token: string; user: User }> {
  const nowSeconds = Math.floor(now / 1000);
  const { loginMaxFailures, loginFailureWindowSeconds } = config.auth;

  const [failures, candidate] = await Promise.all([getFailures(loginName), getLoginCandidate(loginName)]);
  if (failures && failures.count >= loginMaxFailures) {
    const windowEnds = failures.firstFailureAt + loginFailureWindowSeconds;
    if (windowEnds > nowSeconds) {
      metrics.addMetric('LoginsThrottled', MetricUnit.Count, 1);
      throw new TooManyRequests('Too many failed login attempts; try again later', windowEnds - nowSeconds);
    }
  }

  const [user, passwordOk] = await Promise.all([
    candidate ? userOfCandidate(candidate) : undefined,
    verifyPassword(password, candidate?.password_hash),
  ]);
  if (!candidate || !user || !passwordOk || !candidate.is_active || !user.is_active) {
    await recordFailure(loginName, nowSeconds, loginFailureWindowSeconds);
    metrics.addMetric('LoginsFailed', MetricUnit.Count, 1);
    throw new Unauthorized(INVALID);
  }

  metrics.addMetric('LoginsSucceeded', MetricUnit.Count, 1);
  // Right after a revocation, a token stamped with the revoked second would be refused: wait for the next.
  const issuedAt = Math.max(now, tokensValidFromMs(user.tokens_valid_after));
  if (issuedAt > now) await new Promise((resolve) => setTimeout(resolve, Math.min(issuedAt - now, 1000)));
  const at = new Date(now).toISOString();
  const [token] = await Promise.all([issueToken(user, issuedAt), recordLogin(user.id, at), failures ? clearFailures(loginName) : undefined]);
  return { token, user: { ...publicUser(user), last_login: at } };
}
