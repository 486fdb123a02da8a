/** USD with enough digits for per-token amounts ($0.000125) and two for larger ones ($12.34). */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value === 0) return '$0.00';
  const digits = Math.abs(value) >= 1 ? 2 : Math.abs(value) >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

export const int = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toLocaleString('en-US'));

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${Math.round(value).toLocaleString('en-US')} ms`;

export const percent = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value.toFixed(1)} %`);

export const list = (values: readonly string[] | null | undefined) => (values && values.length ? values.join(', ') : '—');
