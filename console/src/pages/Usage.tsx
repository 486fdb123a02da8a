import { useMemo, useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useQuery } from '../api/hooks';
import { getSession, isAdmin } from '../api/session';
import { BarChart } from '../charts/BarChart';
import { ErrorText, Field, PageTitle, Spinner } from '../components/ui';
import { int, usd } from '../format';
import { SpendBreakdown } from './UsageBreakdown';

type Figures = Schemas['UsageFigures'];
type Window = 'last24h' | 'mtd';
type Measure = 'cost_usd' | 'tokens_total' | 'requests';

const MEASURES: Record<Measure, { label: string; format: (v: number) => string }> = {
  cost_usd: { label: 'Cost (USD)', format: usd },
  tokens_total: { label: 'Tokens', format: int },
  requests: { label: 'Requests', format: int },
};
const CONVERSATIONS = 20;

/**
 * GET /api/usage/current gives, per scope (the caller, one conversation, or the whole service),
 * month-to-date and last-24-hours totals and those 24 hours by clock hour. So:
 *   by hour: the scope's own hourly figures, exact, in any measure, for the whole service too;
 *   by conversation: one usage read per conversation (the 20 most recent), exact;
 *   by model: those figures summed per the conversation's resource, exact when each conversation
 *     talks to its own resource (the console's default).
 */
export default function Usage() {
  const admin = isAdmin(getSession()?.user.role);
  const [scope, setScope] = useState<'user' | 'all'>('user');
  const [period, setPeriod] = useState<Window>('last24h');
  const [measure, setMeasure] = useState<Measure>('cost_usd');
  const [refresh, setRefresh] = useState(0);
  const totals = useQuery(() => unwrap(api.GET('/api/usage/current', { params: { query: { scope } } })), [scope, refresh]);
  const breakdown = useQuery(loadBreakdown, [refresh]);

  const byConversation = useMemo(
    () => (breakdown.data?.conversations ?? []).map((c) => ({ label: c.title, figures: c.usage[period] })),
    [breakdown.data, period],
  );
  const byModel = useMemo(() => {
    const sums = new Map<string, number>();
    for (const c of breakdown.data?.conversations ?? []) sums.set(c.model, (sums.get(c.model) ?? 0) + c.usage[period][measure]);
    return [...sums.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  }, [breakdown.data, period, measure]);
  const shown = byConversation.filter((c) => c.figures[measure] > 0);
  // All 25 hours, labelled in the browser's time zone: a quiet hour is a bar of zero, so the axis
  // always spans the day (several labelled hours) rather than only the hours with calls.
  const hours = useMemo(() => {
    const all = totals.data?.hourly ?? [];
    if (!all.some((h) => h.requests > 0)) return [];
    return all.map((h) => ({ ...h, label: `${String(new Date(h.hour).getHours()).padStart(2, '0')}:00` }));
  }, [totals.data]);

  return (
    <section>
      <PageTitle
        actions={
          <button type="button" className="small" onClick={() => setRefresh((n) => n + 1)} disabled={totals.loading || breakdown.loading}>
            Refresh
          </button>
        }
      >
        Usage
      </PageTitle>
      <div className="toolbar">
        {admin ? (
          <Field label="Whose usage">
            {(id) => (
              <select id={id} value={scope} onChange={(e) => setScope(e.target.value as 'user' | 'all')}>
                <option value="user">Mine</option>
                <option value="all">The whole service</option>
              </select>
            )}
          </Field>
        ) : null}
        <Field label="Period">
          {(id) => (
            <select id={id} value={period} onChange={(e) => setPeriod(e.target.value as Window)}>
              <option value="last24h">Last 24 hours</option>
              <option value="mtd">Month to date</option>
            </select>
          )}
        </Field>
        <Field label="Measure">
          {(id) => (
            <select id={id} value={measure} onChange={(e) => setMeasure(e.target.value as Measure)}>
              <option value="cost_usd">Cost</option>
              <option value="tokens_total">Tokens</option>
              <option value="requests">Requests</option>
            </select>
          )}
        </Field>
      </div>
      {totals.loading && !totals.data ? <Spinner label="Loading usage…" /> : null}
      <ErrorText error={totals.error} />
      {totals.data ? <Totals title={scope === 'all' ? 'Whole service' : 'You'} mtd={totals.data.mtd} last24h={totals.data.last24h} /> : null}
      {totals.data ? (
        <div className="charts">
          <BarChart
            title={`${MEASURES[measure].label} by hour, last 24 hours${scope === 'all' ? ', whole service' : ''}`}
            labels={hours.map((h) => h.label)}
            values={hours.map((h) => h[measure])}
            format={MEASURES[measure].format}
            valueLabel={MEASURES[measure].label}
            empty="No usage in the last 24 hours."
          />
        </div>
      ) : null}

      <SpendBreakdown />

      <h2>Breakdown of your conversations</h2>
      {scope === 'all' ? <p className="hint">The charts below cover your own conversations.</p> : null}
      {breakdown.loading && !breakdown.data ? <Spinner label="Reading the usage of your conversations…" /> : null}
      <ErrorText error={breakdown.error} />
      {breakdown.data ? (
        <div className="charts">
          <BarChart
            title={`${MEASURES[measure].label} by conversation, ${period === 'mtd' ? 'month to date' : 'last 24 hours'}`}
            labels={shown.map((c) => c.label)}
            values={shown.map((c) => c.figures[measure])}
            format={MEASURES[measure].format}
            valueLabel={MEASURES[measure].label}
            empty="No usage in this period."
          />
          <BarChart
            title={`${MEASURES[measure].label} by model, ${period === 'mtd' ? 'month to date' : 'last 24 hours'}`}
            labels={byModel.map(([m]) => m)}
            values={byModel.map(([, v]) => v)}
            format={MEASURES[measure].format}
            valueLabel={MEASURES[measure].label}
            empty="No usage in this period."
          />
        </div>
      ) : null}
      {breakdown.data && breakdown.data.more ? <p className="hint">Only your {CONVERSATIONS} most recent conversations are broken down.</p> : null}
    </section>
  );
}

function Totals({ title, mtd, last24h }: { title: string; mtd: Figures; last24h: Figures }) {
  const row = (label: string, f: Figures) => (
    <tr>
      <th scope="row">{label}</th>
      <td>{usd(f.cost_usd)}</td>
      <td>{int(f.tokens_in)}</td>
      <td>{int(f.tokens_out)}</td>
      <td>{int(f.tokens_total)}</td>
      <td>{int(f.requests)}</td>
    </tr>
  );
  return (
    <div className="totals">
      <div className="cards-row">
        <div className="stat">
          <span className="stat-label">Cost, last 24 hours</span>
          <span className="stat-value">{usd(last24h.cost_usd)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Cost, month to date</span>
          <span className="stat-value">{usd(mtd.cost_usd)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Requests, month to date</span>
          <span className="stat-value">{int(mtd.requests)}</span>
        </div>
      </div>
      <div className="table-box" role="region" aria-label={`Usage totals: ${title}`} tabIndex={0}>
        <table>
          <caption>Usage totals: {title}</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col">Cost</th>
              <th scope="col">Tokens in</th>
              <th scope="col">Tokens out</th>
              <th scope="col">Tokens</th>
              <th scope="col">Requests</th>
            </tr>
          </thead>
          <tbody>
            {row('Last 24 hours', last24h)}
            {row('Month to date', mtd)}
          </tbody>
        </table>
      </div>
    </div>
  );
}

interface Breakdown {
  conversations: { id: string; title: string; model: string; usage: { mtd: Figures; last24h: Figures } }[];
  more: boolean;
}

async function loadBreakdown(): Promise<Breakdown> {
  const list = await unwrap(api.GET('/api/conversations', { params: { query: { limit: CONVERSATIONS } } }));
  const usages = await Promise.all(
    list.conversations.map((c) => unwrap(api.GET('/api/usage/current', { params: { query: { conversationId: c.id } } }))),
  );
  const conversations = list.conversations.map((c, i) => ({
    id: c.id,
    title: c.title,
    model: `${c.deployed_resource.resource_name} (${c.deployed_resource.resource_type})`,
    usage: { mtd: (usages[i] as { mtd: Figures }).mtd, last24h: (usages[i] as { last24h: Figures }).last24h },
  }));
  return { conversations, more: list.nextCursor !== null };
}
