import { logger } from '../../../core/observability';
import { currentRateReport, type RateReport, type RateStatus } from '../../budgets/rate-limits';
import { rateLimitsOf } from '../../calls/levels';
import type { ApiMiddleware, ApiMiddlewareFn } from '../types';

/** OpenAI's duration form ("1s", "6m0s", "350ms"): how long until a window resets. */
function resetText(seconds: number): string {
  if (seconds < 1) return `${Math.max(0, Math.round(seconds * 1000))}ms`;
  const whole = Math.floor(seconds);
  const rest = Number((seconds - whole).toFixed(3));
  return whole >= 60 ? `${Math.floor(whole / 60)}m${whole % 60}s` : `${Number((whole + rest).toFixed(3))}s`;
}

function triple(kind: 'requests' | 'tokens', status: RateStatus | undefined): Record<string, string> {
  if (!status) return {};
  return {
    [`x-ratelimit-limit-${kind}`]: String(status.limit),
    [`x-ratelimit-remaining-${kind}`]: String(status.remaining),
    [`x-ratelimit-reset-${kind}`]: resetText(status.resetSeconds),
  };
}

const rateLimitHeaderValues = (report: RateReport) => ({ ...triple('requests', report.requests), ...triple('tokens', report.tokens) });

/**
 * OpenAI's rate-limit headers on every /v1 answer of a caller whom a limit applies to (their key's,
 * or a team's the call counts in): x-ratelimit-limit-, -remaining- and -reset-requests and the same
 * for tokens, each the level with the least left. A metered call reports what its one write found
 * (`state.rates`: refusals included); any other answer (GET /v1/models, a body refused before
 * the call) reads the windows (one BatchGet). A caller without limits gets none: there is nothing
 * to report. Part of the /v1 stack (lib/http/key-endpoint.ts), so every route added there has them.
 */
export function rateLimitHeaders(): ApiMiddleware {
  const stamp: ApiMiddlewareFn = async (request) => {
    const { apiKey, user, memberships, rates } = request.context.state;
    const response = request.response as { headers?: Record<string, string> } | undefined;
    if (!apiKey || !user || !response || typeof response !== 'object') return;
    const limits = rateLimitsOf({ user, key: apiKey, memberships: memberships ?? [] });
    if (limits.length === 0) return;
    try {
      const report = await (rates ?? currentRateReport(limits));
      response.headers = { ...response.headers, ...rateLimitHeaderValues(report) };
    } catch (err) {
      // Informative headers: an answer is never failed for want of them.
      logger.warn({ message: 'rate-limit headers left out: the windows could not be read', reason: (err as Error).message });
    }
  };
  return { after: stamp, onError: stamp };
}
