import { plainItem } from '../client';
import { releaseExpired, reserve, reserveWrite, type ReserveInput, type Reservation } from '../budgets';
import { cancellationReasons, transactWrite } from '../transactions';
import { holdRate, rateCountOf, rateHoldWrite, type RateCount, type RateHold, type RateLimit } from '../rates';

/**
 * Everything a call must hold before the model is asked, in ONE conditional write: a reservation on
 * every spend item whose owner has a budget (tables/budgets.ts) and a request and token bound on every
 * rate-limited level's minute (tables/rates.ts). One item is one UpdateItem (1 write unit, and its new
 * counts come back); two or more are one TransactWriteItems (2 units per item): all held, or none.
 */

type HoldRefusal =
  /** `index` into the spends: its headroom cannot cover the amount. */
  | { kind: 'budget'; index: number }
  /** `index` into the rates: the minute's requests or tokens are used up; `count` is what the window holds. */
  | { kind: 'requests' | 'tokens'; index: number; count: RateCount };

export type HoldResult = { ok: true; reservations: Reservation[]; rates: RateHold[]; counts?: RateCount[] } | { ok: false; refusal: HoldRefusal };

/** How long a transaction of holds may retry conflicts with other callers' (one team's members racing). */
const HOLD_RETRY_MS = 3_000;

type Item = Record<string, unknown>;
const oldItem = (reason: { Item?: Item } | undefined) => plainItem(reason?.Item);

/** Why a rate item refused: the dimension whose limit the old counts leave no room in. */
function rateRefusal(limit: RateLimit, index: number, count: RateCount): HoldRefusal {
  const requests = limit.rpm !== null && count.requests >= limit.rpm;
  return { kind: requests || limit.tpm === null ? 'requests' : 'tokens', index, count };
}

export async function holdCall(spends: (ReserveInput & { now: Date })[], rates: { limit: RateLimit; hold: RateHold }[]): Promise<HoldResult> {
  const writes = spends.map(reserveWrite);
  const tooBig = writes.findIndex((w) => !w.write);
  if (tooBig >= 0) return { ok: false, refusal: { kind: 'budget', index: tooBig } };
  // A bound above the limit itself can never pass: refused without a write.
  const overLimit = rates.findIndex((r) => r.limit.tpm !== null && r.hold.tokens > r.limit.tpm);
  if (overLimit >= 0) return { ok: false, refusal: { kind: 'tokens', index: overLimit, count: { requests: 0, tokens: 0 } } };

  if (spends.length + rates.length === 0) return { ok: true, reservations: [], rates: [] };
  if (spends.length === 1 && rates.length === 0) {
    const reservation = await reserve(spends[0] as ReserveInput & { now: Date });
    return reservation ? { ok: true, reservations: [reservation], rates: [] } : { ok: false, refusal: { kind: 'budget', index: 0 } };
  }
  if (spends.length === 0 && rates.length === 1) {
    const { limit, hold } = rates[0] as { limit: RateLimit; hold: RateHold };
    const held = await holdRate(limit, hold);
    if (held.ok) return { ok: true, reservations: [], rates: [hold], counts: [held.count] };
    return { ok: false, refusal: rateRefusal(limit, 0, held.count) };
  }

  const items = [...writes.map((w) => w.write as NonNullable<typeof w.write>), ...rates.map((r) => rateHoldWrite(r.limit, r.hold))];
  try {
    await transactWrite(items, { until: Date.now() + HOLD_RETRY_MS });
    return { ok: true, reservations: writes.map((w) => w.reservation), rates: rates.map((r) => r.hold) };
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (!reasons?.includes('ConditionalCheckFailed')) throw err;
    const raw = (err as { CancellationReasons?: { Item?: Item }[] }).CancellationReasons ?? [];
    const failed = (i: number) => reasons[i] === 'ConditionalCheckFailed';
    // Bookkeeping only: a refused spend item's expired reservations are charged their bound (they hold
    // it in the headroom either way), so a late settle adjusts them once (tables/budgets.ts).
    await Promise.all(spends.flatMap((s, i) => (failed(i) ? [releaseExpired(s.owner, s.month, oldItem(raw[i]), s.now)] : [])));
    // A budget refusal first: waiting a minute does not help it.
    const budget = spends.findIndex((_, i) => failed(i));
    if (budget >= 0) return { ok: false, refusal: { kind: 'budget', index: budget } };
    const rate = rates.findIndex((_, i) => failed(spends.length + i));
    const { limit } = rates[rate] as { limit: RateLimit };
    return { ok: false, refusal: rateRefusal(limit, rate, rateCountOf(oldItem(raw[spends.length + rate]))) };
  }
}
