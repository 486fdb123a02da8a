/**
 * Money, exactly. Every amount the service computes, holds, reserves or sums is an integer number of
 * nano-dollars (1e-9 USD), from the price to the month's total; it becomes a USD figure only where
 * it is shown (a body's `*_usd` number, the `x-model-ops-cost-usd` header) or stored.
 *
 * Why nano-dollars: a call's cost must be exact for the cheapest call there is, a 5-token embedding on
 * Titan Text Embeddings v2 ($0.02 per 1M tokens: 20 nano-dollars a token, $0.0000001 for the call),
 * and sums must stay exact integers in a JS number: 2^53 nano-dollars is about $9M, far above any
 * one key's, user's or team's month. Prices are finer still (Nova Micro's cache read, $0.00875 per 1M
 * tokens, is 8.75 nano-dollars a token), so a token price is held in pico-dollars (1e-12 USD) and a
 * call's cost is taken to the nano-dollar once, upwards, from the exact product: a price that is a
 * whole number of nano-dollars a token (every shipped one) costs exactly what it says; a finer one
 * is charged less than one nano-dollar above it per call, never below.
 *
 * In the table amounts stay USD, written as exact decimals with at most 9 fractional digits
 * (tables/client.ts `storedUsd`): DynamoDB numbers are decimals of 38 digits whose ADD and
 * comparisons are exact, and items written before this unit (USD rounded to 1e-6) read unchanged.
 */
export type Nanos = number;

const NANOS_PER_USD = 1_000_000_000;
const SCALE = 9;

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * The amount, in nano-dollars, of a USD figure given as a number or a decimal string: read from its
 * decimal digits (a number by its shortest round-trip form), never by multiplying a binary fraction,
 * so 0.0000001 is 100 and 1234567.000000001 is 1234567000000001. Digits below the nano-dollar round
 * half up. Throws on what is not a finite number.
 */
export function nanosOf(usd: number | string): Nanos {
  const text = typeof usd === 'number' ? String(usd) : usd.trim();
  const parts = DECIMAL.exec(text);
  if (!parts || (!parts[2] && !parts[3])) throw new RangeError(`Not a USD amount: ${text}`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts;
  const shift = SCALE + Number(exponent);
  const digits = whole + fraction;
  const point = whole.length + shift; // where the decimal point falls in `digits` once scaled
  const padded = digits.padEnd(point, '0');
  const integer = point <= 0 ? '0' : padded.slice(0, point);
  const rest = point <= 0 ? '0'.repeat(-point) + digits : padded.slice(point);
  const magnitude = BigInt(integer || '0') + (Number(rest[0] ?? 0) >= 5 ? 1n : 0n);
  const value = Number(sign === '-' ? -magnitude : magnitude);
  if (!Number.isFinite(value)) throw new RangeError(`Not a USD amount: ${text}`);
  return value === 0 ? 0 : value;
}

/** The USD figure of an amount, for a JSON body: the double nearest to the exact decimal. */
export const usdOf = (nanos: Nanos): number => nanos / NANOS_PER_USD;

/** The exact decimal text of an amount in USD, with up to 9 decimals and no trailing zeros: "0.0000001", "12.5", "0". */
export function usdText(nanos: Nanos): string {
  const n = BigInt(Math.round(nanos));
  const magnitude = n < 0n ? -n : n;
  const whole = magnitude / BigInt(NANOS_PER_USD);
  const fraction = (magnitude % BigInt(NANOS_PER_USD)).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${n < 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A token price, USD per 1,000 tokens, as pico-dollars per token (exact for a price of up to 9 decimals
 * per 1k). Every call's cost reads its prices, and a deployment has a few hundred at most: each is read
 * from its decimal digits once and kept (a bounded memo, emptied if it ever fills).
 */
const PICOS_PER_TOKEN = new Map<number, bigint>();
const PICOS_MEMO_SIZE = 4096;
function picosPerToken(usdPer1k: number): bigint {
  let picos = PICOS_PER_TOKEN.get(usdPer1k);
  if (picos === undefined) {
    picos = BigInt(nanosOf(usdPer1k));
    if (PICOS_PER_TOKEN.size >= PICOS_MEMO_SIZE) PICOS_PER_TOKEN.clear();
    PICOS_PER_TOKEN.set(usdPer1k, picos);
  }
  return picos;
}

/**
 * What `tokens` cost at these per-token prices, in nano-dollars: the exact product in pico-dollars,
 * scaled by `percent` (a processing tier's share of the Standard price, a whole number: 50, 175),
 * taken to the nano-dollar upwards once (exact for prices that are whole nano-dollars a token at 100 %).
 */
export function costOfTokens(items: { tokens: number; usdPer1k: number }[], percent = 100): Nanos {
  let picos = 0n;
  for (const { tokens, usdPer1k } of items) picos += BigInt(Math.max(0, Math.round(tokens))) * picosPerToken(usdPer1k);
  const scaled = picos * BigInt(percent);
  return Number((scaled + 99_999n) / 100_000n);
}

/**
 * A USD figure times whole factors (instances, hours: 24 a day, 730 a month), exactly, as a USD figure:
 * the price's nano-dollars multiplied, never a binary fraction (1.408 x 730 is 1027.84, not 1027.8399…).
 */
export const usdTimes = (usd: number, ...factors: number[]): number => usdOf(factors.reduce((n, f) => n * f, nanosOf(usd)));

/**
 * What `instanceSeconds` of one instance at `usdPerHour` cost, in nano-dollars: the exact product to
 * the millisecond, taken upwards to the nano-dollar once (a dedicated endpoint's month to date).
 */
export function costOfInstanceTime(usdPerHour: number, instanceSeconds: number): Nanos {
  const millis = BigInt(Math.max(0, Math.round(instanceSeconds * 1000)));
  return Number((BigInt(nanosOf(usdPerHour)) * millis + 3_599_999n) / 3_600_000n);
}
