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

/** Where the console shows a failed sign-in, in words. */
export const failure = (message: string): string => `${oidcConfig().consoleUrl}#sso_error=${encodeURIComponent(message)}`;

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
 * a button in a browser, and a JSON page would strand them.
 */
export async function beginSignOn(next?: string, now = Date.now()): Promise<Redirect> {
  if (!config.auth.oidc) throw new NotFound('Single sign-on is not configured');
  try {
    return await startFlow(next, now);
  } catch (err) {
    return { location: failure(describeFailure(err, 'start')), cookie: cookieHeader('', 0) };
  }
}
