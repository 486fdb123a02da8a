import { minuteEndsAt, minuteOf, readRateCounts, type RateCount, type RateLimit } from '../../tables/rates';

/**
 * Rate limits of keys and teams (`rpm_limit`, `tpm_limit`): how a level is named to its caller, and
 * what the caller is told of the window (OpenAI's x-ratelimit-* headers, lib/http). The counting is
 * tables/rates.ts, held with the budgets in one write (lib/budgets/reservations.ts holdAll).
 *
 * Tokens are counted as OpenAI counts them for its limits: a call takes its bound (the prompt's bound
 * plus its max output tokens) when it is let through, and is settled to its true count once answered,
 * so concurrent calls can never pass the limit together, and an answered call leaves only what it used.
 */

/** A limited level as a caller hears about it: "this API key", "team 'research'". */
export interface NamedLimit extends RateLimit {
  label: string;
}

export interface RateStatus {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (the minute ends). */
  resetSeconds: number;
}

/** What the caller is told: per dimension, the level with the least left. */
export interface RateReport {
  requests?: RateStatus;
  tokens?: RateStatus;
}

function tightest(entries: RateStatus[]): RateStatus | undefined {
  return entries.reduce<RateStatus | undefined>(
    (a, b) => (!a || b.remaining < a.remaining || (b.remaining === a.remaining && b.limit < a.limit) ? b : a),
    undefined,
  );
}

export function rateReport(limits: RateLimit[], counts: RateCount[], minute: string, now: Date): RateReport {
  const resetSeconds = Math.max(0, (minuteEndsAt(minute) - now.getTime()) / 1000);
  const status = (limit: number, used: number): RateStatus => ({ limit, remaining: Math.max(0, limit - used), resetSeconds });
  return {
    requests: tightest(limits.flatMap((l, i) => (l.rpm === null ? [] : [status(l.rpm, counts[i]?.requests ?? 0)]))),
    tokens: tightest(limits.flatMap((l, i) => (l.tpm === null ? [] : [status(l.tpm, counts[i]?.tokens ?? 0)]))),
  };
}

/** OpenAI's wording of a refusal, naming the level, the limit and what the window holds. */
export function rateRefusalMessage(
  limit: NamedLimit,
  kind: 'requests' | 'tokens',
  count: RateCount,
  requestedTokens: number,
  retryAfterSeconds: number,
): string {
  const wait = `Please try again in ${Math.ceil(retryAfterSeconds)}s.`;
  if (kind === 'requests') {
    return `Rate limit reached for ${limit.label} on requests per minute (RPM): Limit ${limit.rpm}, Used ${count.requests}, Requested 1. ${wait}`;
  }
  if (limit.tpm !== null && requestedTokens > limit.tpm) {
    return `Request too large for ${limit.label} on tokens per minute (TPM): Limit ${limit.tpm}, Requested ${requestedTokens} (the prompt's bound plus max_tokens). Lower max_tokens or shorten the prompt.`;
  }
  return `Rate limit reached for ${limit.label} on tokens per minute (TPM): Limit ${limit.tpm}, Used ${count.tokens}, Requested ${requestedTokens}. ${wait}`;
}

/** What a call's caller is told of their windows: known at once, or once the windows' counts are read. */
export type RateNews = RateReport | Promise<RateReport>;

const REPORTED = Symbol('rate report');

/**
 * A call's error carrying the rate report of its holds (a rate limit's refusal, a platform failure
 * after the windows were taken), so that its answer tells the windows as the call found them. The
 * first report an error is given is kept: the one nearest the write.
 */
export function reportingRates<E>(err: E, report: RateNews | undefined): E {
  if (report !== undefined && err !== null && typeof err === 'object' && !(REPORTED in err)) {
    Object.defineProperty(err, REPORTED, { value: report });
  }
  return err;
}

/** The rate report an error carries, if its call held (or was refused) any window. */
export const reportedRates = (err: unknown): RateNews | undefined =>
  err !== null && typeof err === 'object' ? (err as { [REPORTED]?: RateNews })[REPORTED] : undefined;

/** The windows as they stand now, for an answer whose call held nothing (GET /v1/models, a refused body). */
export async function currentRateReport(limits: RateLimit[], now = new Date()): Promise<RateReport> {
  const minute = minuteOf(now);
  const counts = await readRateCounts(
    limits.map((l) => l.level),
    minute,
  );
  return rateReport(limits, counts, minute, now);
}
