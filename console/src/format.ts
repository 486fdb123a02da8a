// The one rounding of money, shared with the API's own sentences (a deploy plan's guardrails).
export { usd } from '../../lib/pricing/money';

export const int = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toLocaleString('en-US'));

/** A count with its noun: "1 request", "2 requests", "— requests" when unknown. */
export const count = (value: number | null | undefined, noun: string, plural = `${noun}s`) => `${int(value)} ${value === 1 ? noun : plural}`;

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${Math.round(value).toLocaleString('en-US')} ms`;

export const percent = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value.toFixed(1)} %`);

export const list = (values: readonly string[] | null | undefined) => (values && values.length ? values.join(', ') : '—');

/** Bedrock's model lifecycle in words: "LEGACY, end of life 2026-05-01" (the date only where Bedrock gives one). */
export const lifecycle = (l: { status: string; endOfLifeTime?: string }) =>
  l.endOfLifeTime ? `${l.status}, end of life ${l.endOfLifeTime.slice(0, 10)}` : l.status;
