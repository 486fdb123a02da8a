/**
 * The Usage page's spend breakdown (GET /api/usage/breakdown): by team, model, key, resource, user or
 * route over a range of days, a stacked chart by day, the rows in a table, and "Download CSV" (the
 * same breakdown as text/csv, fetched with the session's token and saved from a Blob).
 */
import { useMemo, useState } from 'react';
import { api, errorText, unwrap, type Schemas } from '../api/client';
import { useQuery } from '../api/hooks';
import { StackedDayChart, type DaySeries } from '../charts/StackedDayChart';
import { ErrorText, Field, Spinner } from '../components/ui';
import { int, usd } from '../format';

type GroupBy = 'team' | 'model' | 'key' | 'resource' | 'user' | 'route';
type Row = Schemas['BreakdownRow'];

/** Each grouping's column heading and the noun a title uses. */
const GROUPINGS: Record<GroupBy, { label: string; noun: string }> = {
  team: { label: 'Team', noun: 'team' },
  model: { label: 'Model', noun: 'model' },
  key: { label: 'API key', noun: 'API key' },
  resource: { label: 'Resource', noun: 'resource' },
  user: { label: 'User', noun: 'user' },
  route: { label: 'Route', noun: 'route' },
};
/** The chart stacks the most expensive groups; the rest are one "Others" band. */
const STACKED = 6;

const today = () => new Date().toISOString().slice(0, 10);
const monthStart = () => `${today().slice(0, 7)}-01`;

/** Every day from `from` to `to`, both included. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); at <= end && days.length <= 366; at += 86_400_000) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

const nameOf = (row: Row) => row.group.name ?? `${row.group.id} (deleted)`;

function seriesOf(rows: Row[]): DaySeries[] {
  const top = rows.slice(0, STACKED).map((r) => ({ name: nameOf(r), byDay: new Map(r.by_day.map((d) => [d.date, Number(d.cost_usd)])) }));
  const rest = rows.slice(STACKED);
  if (rest.length === 0) return top;
  const others = new Map<string, number>();
  for (const r of rest) for (const d of r.by_day) others.set(d.date, (others.get(d.date) ?? 0) + Number(d.cost_usd));
  return [...top, { name: `Others (${rest.length})`, byDay: others }];
}

/** The file name the service gives in Content-Disposition, or one of our own. */
function fileNameOf(response: Response, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '');
  return match?.[1] ?? fallback;
}

export function SpendBreakdown() {
  const [groupBy, setGroupBy] = useState<GroupBy>('team');
  const [from, setFrom] = useState(monthStart);
  const [to, setTo] = useState(today);
  const [downloadError, setDownloadError] = useState<string>();
  const query = { groupBy, from, to };
  const breakdown = useQuery(async () => {
    const data = await unwrap(api.GET('/api/usage/breakdown', { params: { query } }));
    // The route also answers text/csv (format=csv); asked for JSON, it answers JSON.
    if (typeof data === 'string') throw new Error('The service answered text where JSON was asked for');
    return data;
  }, [groupBy, from, to]);
  const rows = useMemo(() => breakdown.data?.rows ?? [], [breakdown.data]);
  const days = useMemo(() => (breakdown.data ? daysOf(breakdown.data.from, breakdown.data.to) : []), [breakdown.data]);
  const series = useMemo(() => seriesOf(rows), [rows]);

  const download = async () => {
    setDownloadError(undefined);
    try {
      const { data, error, response } = await api.GET('/api/usage/breakdown', { params: { query: { ...query, format: 'csv' } }, parseAs: 'blob' });
      if (!response.ok || error !== undefined || !(data instanceof Blob)) throw new Error(`The service answered ${response.status}`);
      const url = URL.createObjectURL(data);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileNameOf(response, `usage-by-${groupBy}-${from}-to-${to}.csv`);
      document.body.append(link);
      link.click();
      link.remove();
      // The click has handed the Blob to the download; the URL is not needed after this turn.
      setTimeout(() => URL.revokeObjectURL(url), 0);
    } catch (err) {
      setDownloadError(errorText(err));
    }
  };

  return (
    <>
      <h2>Spend broken down</h2>
      <div className="toolbar">
        <Field label="Group by">
          {(id) => (
            <select id={id} value={groupBy} onChange={(e) => setGroupBy(e.target.value as GroupBy)}>
              {Object.entries(GROUPINGS).map(([value, { label }]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From">
          {(id) => <input id={id} type="date" value={from} max={to} onChange={(e) => e.target.value && setFrom(e.target.value)} />}
        </Field>
        <Field label="To">
          {(id) => <input id={id} type="date" value={to} min={from} onChange={(e) => e.target.value && setTo(e.target.value)} />}
        </Field>
        <button type="button" className="small" onClick={() => void download()} disabled={!breakdown.data}>
          Download CSV
        </button>
      </div>
      {downloadError ? <p className="error">{downloadError}</p> : null}
      {breakdown.loading && !breakdown.data ? <Spinner label="Reading the breakdown…" /> : null}
      <ErrorText error={breakdown.error} />
      {breakdown.data ? (
        <>
          <StackedDayChart
            title={`Cost by day and ${GROUPINGS[groupBy].noun}, ${breakdown.data.from} to ${breakdown.data.to}`}
            days={days}
            series={series}
            format={usd}
            empty="No spend in this range."
          />
          {rows.length > 0 ? (
            <div className="table-box" role="region" aria-label={`Spend by ${GROUPINGS[groupBy].noun}`} tabIndex={0}>
              <table>
                <caption>Spend by {GROUPINGS[groupBy].noun}</caption>
                <thead>
                  <tr>
                    <th scope="col">{GROUPINGS[groupBy].label}</th>
                    <th scope="col">Cost</th>
                    <th scope="col">Tokens in</th>
                    <th scope="col">Tokens out</th>
                    <th scope="col">Cached tokens</th>
                    <th scope="col">Requests</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.group.id}>
                      <th scope="row">{nameOf(r)}</th>
                      <td>${r.cost_usd}</td>
                      <td>{int(r.tokens_in)}</td>
                      <td>{int(r.tokens_out)}</td>
                      <td>{int(r.cached_tokens)}</td>
                      <td>{int(r.requests)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : null}
    </>
  );
}
