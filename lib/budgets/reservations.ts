import { monthOf, release, reserve, type BudgetOwner, type Reservation, type SpendSettle } from '../../tables/budgets';
import { BudgetExceeded } from '../errors';
import { textOf, type ChatRequest } from '../platforms/types';

/**
 * Budgets on model calls, for every path that spends (the gateway's completions, the session chat):
 * reserve an upper bound of the call's cost before the model is asked, settle to the true cost in the
 * transaction that records the answer (tables/turns.ts commitCharged), give it back when the call
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
export const IMAGE_TOKENS = 1_600;

/**
 * An upper bound of the prompt's tokens: its UTF-8 bytes (a byte-level tokenizer never makes more
 * tokens than bytes), the tools' and the output schema's JSON and the tool calls' arguments likewise,
 * an allowance per image, plus the chat template's allowance. Generous on purpose: what it reserves
 * beyond the true cost is given back when the call settles.
 */
export function promptTokenBound(request: Pick<ChatRequest, 'system' | 'messages' | 'tools' | 'outputFormat'>): number {
  const texts = [request.system ?? '', ...request.messages.map((m) => textOf(m.content))];
  const bytes = (t: string) => Buffer.byteLength(t, 'utf8');
  let tokens = texts.reduce((n, t) => n + bytes(t), 0) + TEMPLATE_TOKENS_PER_MESSAGE * texts.length + TEMPLATE_TOKENS;
  for (const m of request.messages) {
    if (typeof m.content !== 'string') tokens += m.content.filter((p) => p.type === 'image').length * IMAGE_TOKENS;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) tokens += bytes(c.name) + bytes(c.arguments) + TEMPLATE_TOKENS_PER_MESSAGE;
  }
  if (request.tools?.length) tokens += bytes(JSON.stringify(request.tools)) + TEMPLATE_TOKENS;
  if (request.outputFormat) tokens += bytes(JSON.stringify(request.outputFormat)) + TEMPLATE_TOKENS;
  return tokens;
}

/** An upper bound of the tokens of texts to embed: their UTF-8 bytes, and a few per text for the model's markers. */
export const embeddingTokenBound = (inputs: string[]) => inputs.reduce((n, t) => n + Buffer.byteLength(t, 'utf8') + 2, 0);

/** A budget a call counts against: its owner and the monthly amount (null: none, the spend is only counted). */
export interface Budget {
  owner: BudgetOwner;
  budgetUsd: number | null;
}

/**
 * Reserves `amountUsd` on every budget that is set, all or none: BudgetExceeded (worded
 * by `refusal`) when one cannot cover it.
 */
export async function reserveAll(
  budgets: Budget[],
  amountUsd: number,
  callId: string,
  now: Date,
  refusal: (owner: BudgetOwner) => string,
): Promise<Reservation[]> {
  const month = monthOf(now);
  const expiresAt = new Date(now.getTime() + RESERVATION_TTL_MS);
  const limited = budgets.filter((b): b is Budget & { budgetUsd: number } => b.budgetUsd !== null);
  const results = await Promise.allSettled(
    limited.map((b) => reserve({ owner: b.owner, month, budgetUsd: b.budgetUsd, amountUsd, id: callId, expiresAt, now })),
  );
  const taken = results.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  if (taken.length === limited.length) return taken;
  await Promise.all(taken.map(release));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  const refused = limited[results.findIndex((r) => r.status === 'fulfilled' && !r.value)] as Budget;
  throw new BudgetExceeded(`${refusal(refused.owner)} (up to $${amountUsd.toFixed(6)})`);
}

/**
 * What each budget's spend item gets when the call is recorded: its reservation settled, or a plain
 * charge. None when there is nothing to record (a free call that reserved nothing): no write then.
 */
export function settlesOf(budgets: Budget[], reservations: Reservation[], now: Date, costUsd: number): SpendSettle[] {
  if (costUsd <= 0 && reservations.length === 0) return [];
  const month = monthOf(now);
  return budgets.map((b) => {
    const reservation = reservations.find((r) => r.owner.kind === b.owner.kind && r.owner.id === b.owner.id);
    return reservation ? { reservation } : { owner: b.owner, month, budgetUsd: b.budgetUsd };
  });
}
