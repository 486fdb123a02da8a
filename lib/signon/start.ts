/**
 * The start of a sign-on, and how any sign-on step that cannot go on ends: a module of its own so
 * that the login start's function bundles the protocol (lib/auth/oidc.ts) and nothing of the users,
 * teams or table that the callback needs (lib/signon/callback.ts).
 */
import { config } from '../../core/config';
import { MetricUnit, logger, metrics } from '../../core/observability';
import { DomainError, NotFound } from '../errors';
import { SsoError, cookieHeader, oidcConfig, startFlow } from '../auth/oidc';

export interface Redirect {
  location: string;
  cookie: string;
}

/**
 * The console's login page with what a sign-on hands over in the fragment: the token or the reason
 * it failed, with the console's nonce of the flow (`sso_nonce`), which the console checks against
 * the one it stored before it sent the browser off. Without a flow (no cookie, or an expired one)
 * there is no nonce to echo, and the console ignores the hand-off: it cannot tell it from a forged link.
 */
export function handOff(what: { token: string } | { error: string }, consoleNonce: string | undefined, next?: string): string {
  const query = next ? `?next=${encodeURIComponent(next)}` : '';
  const value = 'token' in what ? `sso_token=${what.token}` : `sso_error=${encodeURIComponent(what.error)}`;
  const nonce = consoleNonce ? `&sso_nonce=${consoleNonce}` : '';
  return `${oidcConfig().consoleUrl}${query}#${value}${nonce}`;
}

export function describeFailure(err: unknown, stage: string): string {
  if (err instanceof SsoError || err instanceof DomainError) {
    const reason = err instanceof SsoError ? err.reason : err.kind;
    metrics.addMetric('SignOnFailures', MetricUnit.Count, 1);
    logger.warn({ message: 'sign-on refused', stage, reason, detail: err.message });
    return err.message;
  }
  metrics.addMetric('SignOnFailures', MetricUnit.Count, 1);
  logger.error({ message: 'sign-on failed', stage, error: err as Error });
  return 'The sign-in could not be completed; please try again';
}

/**
 * GET /api/auth/oidc/login: off without OIDC_ISSUER (404); otherwise always a redirect, to the
 * provider, or (when it cannot be reached) back to the console with the reason: the person pressed
 * a button in a browser, and a JSON page would strand them. `nonce` is the console's (handOff).
 */
export async function beginSignOn(start: { nonce: string; next?: string }, now = Date.now()): Promise<Redirect> {
  if (!config.auth.oidc) throw new NotFound('Single sign-on is not configured');
  try {
    return await startFlow({ consoleNonce: start.nonce, next: start.next }, now);
  } catch (err) {
    return { location: handOff({ error: describeFailure(err, 'start') }, start.nonce), cookie: cookieHeader('', 0) };
  }
}
