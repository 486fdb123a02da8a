import { logger } from '../../../core/observability';
import { currentRateReport, reportedRates, type RateNews, type RateReport, type RateStatus } from '../../budgets/rate-limits';
import { rateLimitsOf, type Payer } from '../../calls/levels';
import { REPLY, STREAMED, reply, type ApiMiddleware, type Reply, type Streamed } from '../types';

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
 * OpenAI's rate-limit headers of a caller whom a limit applies to (their key's, or a team's the call
 * counts in): x-ratelimit-limit-, -remaining- and -reset-requests and the same for tokens, each the
 * level with the least left. A metered call's answer says what its one write found (`reported`: the
 * report it returned, or carried on its error); any other answer (GET /v1/models, a body refused
 * before the call) reads the windows (one BatchGet). A caller without limits gets none: there is
 * nothing to report.
 */
async function rateLimitHeadersOf(payer: Payer, reported: RateNews | undefined): Promise<Record<string, string>> {
  const limits = rateLimitsOf(payer);
  if (limits.length === 0) return {};
  try {
    return rateLimitHeaderValues(await (reported ?? currentRateReport(limits)));
  } catch (err) {
    // Informative headers: an answer is never failed for want of them.
    logger.warn({ message: 'rate-limit headers left out: the windows could not be read', reason: (err as Error).message });
    return {};
  }
}

/** A /v1 handler's answer (a plain body is a 200) with its caller's rate-limit headers, from the report it returned. */
export async function withRateLimitHeaders(answer: unknown, payer: Payer): Promise<Reply | Streamed> {
  const sent =
    answer !== null && typeof answer === 'object' && (REPLY in answer || STREAMED in answer) ? (answer as Reply | Streamed) : reply(200, answer);
  return { ...sent, headers: { ...sent.headers, ...(await rateLimitHeadersOf(payer, sent.rates)) } };
}

/**
 * The same headers on a /v1 error: from the report the error carries (a rate limit's refusal, a
 * platform failure after the call's holds were taken), else read. Part of the /v1 stack
 * (lib/http/key-endpoint.ts), so every route added there has them.
 */
export function rateLimitHeaders(): ApiMiddleware {
  return {
    onError: async (request) => {
      const { apiKey, user, memberships } = request.context.state;
      const response = request.response as { headers?: Record<string, string> } | undefined;
      if (!apiKey || !user || !response || typeof response !== 'object') return;
      const headers = await rateLimitHeadersOf({ user, key: apiKey, memberships: memberships ?? [] }, reportedRates(request.error));
      response.headers = { ...response.headers, ...headers };
    },
  };
}
