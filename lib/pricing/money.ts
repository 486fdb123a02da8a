/**
 * Money as people read it, one rounding for every place that shows it: the API's sentences (a deploy
 * plan's guardrails) and the console (console/src/format.ts re-exports this), so one figure never reads
 * as two amounts. Two decimals from $1, four from a cent, six below (per-token prices: $0.000125);
 * rounding half away from zero on the decimal digits as written (Intl), never on the binary value
 * (1.515.toFixed(2) is "1.51").
 */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value === 0) return '$0.00';
  const digits = Math.abs(value) >= 1 ? 2 : Math.abs(value) >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}
