import { nanosOf, usdText, type Nanos } from '../../core/money';
import { markRefused, monthOf, release, type BudgetOwner, type Reservation, type SpendSettle } from '../../tables/budgets';
import { holdCall } from '../../tables/writes/holds';
import { minuteEndsAt, minuteOf, readRateCounts, releaseRate, type RateHold } from '../../tables/rates';
import { BudgetExceeded, TooManyRequests } from '../errors';
import { rateRefusalMessage, rateReport, reportingRates, type NamedLimit, type RateNews } from './rate-limits';
import { documentTokenBound } from '../platforms/documents';
import { documentsOf, systemText, textOf, type ChatRequest } from '../platforms/types';

/**
 * Budgets on model calls, for every path that spends (the gateway's completions, the session chat):
 * reserve an upper bound of the call's cost before the model is asked, settle to the true cost in the
 * transaction that records the answer (tables/writes/turns.ts commitCharged), give it back when the call
 * fails. tables/budgets.ts says how the spend items keep that exact under concurrency.
 */

/** How long a reservation holds budget if its call never settles (a crash): well past the function's 29 s. */
export const RESERVATION_TTL_MS = 5 * 60_000;
/** Per-message and per-request allowances for the chat template's tokens in the prompt's upper bound. */
const TEMPLATE_TOKENS_PER_MESSAGE = 10;
const TEMPLATE_TOKENS = 20;

/**
 * What one image may count as input at most: the platforms scale an image down to about 1.15
 * megapixels and count about 1,600 tokens for it (Anthropic's and Converse's documented formula,
 * width x height / 750). Its base64 bytes would be a bound too, but one of millions of tokens.
 */
const IMAGE_TOKENS = 1_600;

/**
 * An upper bound of the prompt's tokens: its UTF-8 bytes (a byte-level tokenizer never makes more
 * tokens than bytes), the tools' and the output schema's JSON and the tool calls' arguments likewise,
 * an allowance per image, each document's bound (lib/platforms/documents.ts), plus the chat template's allowance. Generous on purpose: what it reserves
 * beyond the true cost is given back when the call settles.
 */
export function promptTokenBound(request: Pick<ChatRequest, 'system' | 'messages' | 'tools' | 'outputFormat'>): number {
  const texts = [systemText(request.system), ...request.messages.map((m) => textOf(m.content))];
  const bytes = (t: string) => Buffer.byteLength(t, 'utf8');
  let tokens = texts.reduce((n, t) => n + bytes(t), 0) + TEMPLATE_TOKENS_PER_MESSAGE * texts.length + TEMPLATE_TOKENS;
  for (const m of request.messages) {
    if (typeof m.content !== 'string') tokens += m.content.filter((p) => p.type === 'image').length * IMAGE_TOKENS;
    for (const document of documentsOf(m.content)) tokens += documentTokenBound(document) + TEMPLATE_TOKENS_PER_MESSAGE;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) tokens += bytes(c.name) + bytes(c.arguments) + TEMPLATE_TOKENS_PER_MESSAGE;
  }
  if (request.tools?.length) tokens += bytes(JSON.stringify(request.tools)) + TEMPLATE_TOKENS;
  if (request.outputFormat) tokens += bytes(JSON.stringify(request.outputFormat)) + TEMPLATE_TOKENS;
  return tokens;
}

/** An upper bound of the tokens of texts to embed: their UTF-8 bytes, and a few per text for the model's markers. */
export const embeddingTokenBound = (inputs: string[]) => inputs.reduce((n, t) => n + Buffer.byteLength(t, 'utf8') + 2, 0);

/**
 * A budget a call counts against: its owner and the monthly amount (null: none, the spend is only
 * counted), and the team's name for a team's or member's (a refusal names it).
 */
export interface Budget {
  owner: BudgetOwner;
  budgetUsd: number | null;
  teamName?: string;
}

/** What a call holds before the model is asked; `report` is what its caller is told of the rate windows. */
export interface Held {
  reservations: Reservation[];
  rates: RateHold[];
  report?: RateNews;
}

/**
 * Holds everything a call needs before the model is asked, in one conditional write (tables/writes/holds.ts):
 * `amount` (nano-dollars) on every budget that is set (when there is an amount), and a request and `tokens` on
 * every limited level's minute; all or none. BudgetExceeded (worded by `refusal`) when a budget cannot
 * cover it, TooManyRequests `rate_limit_exceeded` with Retry-After when a window is used up. What the
 * caller is told of the windows comes back with the holds (`report`), or on the refusal
 * (reportingRates: lib/budgets/rate-limits.ts).
 */
export async function holdAll(input: {
  budgets: Budget[];
  limits: NamedLimit[];
  amount: Nanos;
  tokens: number;
  callId: string;
  now: Date;
  refusal: (budget: Budget) => string;
}): Promise<Held> {
  const { now, limits } = input;
  const month = monthOf(now);
  const minute = minuteOf(now);
  const expiresAt = new Date(now.getTime() + RESERVATION_TTL_MS);
  const limited = input.amount > 0 ? input.budgets.filter((b): b is Budget & { budgetUsd: number } => b.budgetUsd !== null) : [];
  const tokens = Math.max(0, Math.ceil(input.tokens));
  const result = await holdCall(
    limited.map((b) => ({ owner: b.owner, month, budget: nanosOf(b.budgetUsd), amount: input.amount, id: input.callId, expiresAt, now })),
    limits.map((limit) => ({ limit, hold: { level: limit.level, minute, tokens } })),
  );
  if (result.ok) {
    const report = !limits.length
      ? undefined
      : result.counts
        ? rateReport(limits, result.counts, minute, now)
        : readRateCounts(
            limits.map((l) => l.level),
            minute,
          ).then((counts) => rateReport(limits, counts, minute, new Date()));
    // Read only if an answer tells it (a /v1 answer's headers; the session chat's does not).
    if (report instanceof Promise) report.catch(() => undefined);
    return { reservations: result.reservations, rates: result.rates, report };
  }
  const { refusal } = result;
  if (refusal.kind === 'budget') {
    // Noted before the refusal is answered (the first of the month only): the budget's 100 % alert
    // fires on it, through the table's stream (lib/alerts).
    const refused = limited[refusal.index] as Budget & { budgetUsd: number };
    await markRefused(refused.owner, month, nanosOf(refused.budgetUsd), now);
    throw new BudgetExceeded(`${input.refusal(limited[refusal.index] as Budget)} (up to $${usdText(input.amount)})`);
  }
  const limit = limits[refusal.index] as NamedLimit;
  const retryAfter = Math.max(1, Math.ceil((minuteEndsAt(minute) - now.getTime()) / 1000));
  const counts = limits.map((l, i) => (i === refusal.index ? refusal.count : { requests: 0, tokens: 0 }));
  const report = rateReport(limits, counts, minute, now);
  // The refused dimension has nothing left, whatever the other levels hold.
  const status = report[refusal.kind];
  if (status) status.remaining = 0;
  throw reportingRates(
    new TooManyRequests(rateRefusalMessage(limit, refusal.kind, refusal.count, tokens, retryAfter), retryAfter, { code: 'rate_limit_exceeded' }),
    report,
  );
}

/** A failed call's holds given back: its reservations, and its token bounds (its requests stay counted). */
export const releaseHeld = (held: Pick<Held, 'reservations' | 'rates'>) =>
  Promise.all([...held.reservations.map(release), ...held.rates.map(releaseRate)]).then(() => undefined);

/**
 * What each budget's spend item gets when the call is recorded: its reservation settled, or a plain
 * charge. None when there is nothing to record (a free call that reserved nothing): no write then.
 */
export function settlesOf(budgets: Budget[], reservations: Reservation[], now: Date, cost: Nanos): SpendSettle[] {
  if (cost <= 0 && reservations.length === 0) return [];
  const month = monthOf(now);
  return budgets.map((b) => {
    const reservation = reservations.find((r) => r.owner.kind === b.owner.kind && r.owner.id === b.owner.id);
    return reservation ? { reservation } : { owner: b.owner, month, budgetUsd: b.budgetUsd };
  });
}
