import { usdText } from '../../core/money';
import { addSpend, readBreakdown, type BreakdownKind, type BreakdownRow, type BreakdownView, type SpendFigures } from '../../tables/breakdown';
import { getApiKeyRecords } from '../../tables/keys';
import { resourcesById, getRoutes } from '../../tables/routes';
import { getTeams, readMemberships } from '../../tables/teams';
import { getUsers, type User } from '../../tables/users';
import { BadRequest } from '../errors';
import { isAdmin, teamAccess } from '../teams/service';

/**
 * GET /api/usage/breakdown (docs/usage.md "Spend broken down"): spend by team, user, key, model,
 * resource or route over a range of days, from the aggregates the stream keeps per day and group
 * (tables/breakdown.ts). Its reads are one Query per view it sums (one, or one per team the caller
 * owns for groupBy=team) and one BatchGet of the groups' names: what it costs depends on the days and
 * groups it returns, never on the number of calls behind them.
 */

export interface BreakdownQuery {
  from?: string;
  to?: string;
  groupBy?: BreakdownKind;
  teamId?: string;
  format?: 'json' | 'csv';
}

/** A year and a day: a leap year's whole calendar year fits. */
const MAX_BREAKDOWN_DAYS = 366;
const DAY_MS = 86_400_000;

interface BreakdownFigures {
  cost_usd: string;
  tokens_in: number;
  tokens_out: number;
  cached_tokens: number;
  requests: number;
}

interface BreakdownEntry extends BreakdownFigures {
  group: { id: string; name: string | null };
  /** The group's days with spend, oldest first: what the console's chart stacks. */
  by_day: { date: string; cost_usd: string; requests: number }[];
}

export interface Breakdown {
  from: string;
  to: string;
  groupBy: BreakdownKind;
  teamId?: string;
  rows: BreakdownEntry[];
}

function parseDay(text: string, name: string): number {
  const at = Date.parse(`${text}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over to March: a day that does not exist is refused, not moved.
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text)
    throw new BadRequest(`'${name}' is not a calendar day (yyyy-mm-dd): ${text}`);
  return at;
}

/** The range asked for: this month to date by default; `to` not before `from`, at most MAX_BREAKDOWN_DAYS days. */
function breakdownRange(query: Pick<BreakdownQuery, 'from' | 'to'>, now = new Date()): { from: string; to: string } {
  const today = now.toISOString().slice(0, 10);
  const from = query.from ?? (query.to ? `${query.to.slice(0, 7)}-01` : `${today.slice(0, 7)}-01`);
  const to = query.to ?? (query.from && query.from.slice(0, 7) !== today.slice(0, 7) ? lastDayOfMonth(query.from) : today);
  const days = (parseDay(to, 'to') - parseDay(from, 'from')) / DAY_MS + 1;
  if (days < 1) throw new BadRequest(`'to' (${to}) is before 'from' (${from})`);
  if (days > MAX_BREAKDOWN_DAYS) throw new BadRequest(`The range is ${days} days; at most ${MAX_BREAKDOWN_DAYS} days may be asked for at once`);
  return { from, to };
}

function lastDayOfMonth(day: string): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/**
 * The partitions a caller's breakdown sums, none of them overlapping, so no call is counted twice:
 * a team (`teamId`: its owners and admins) is that team's view; an admin otherwise sees every call;
 * anyone else their own calls, except by team, where a team they own is shown whole.
 */
async function viewsFor(
  user: User,
  kind: BreakdownKind,
  teamId: string | undefined,
): Promise<{ view: BreakdownView; only?: Set<string>; except?: Set<string> }[]> {
  if (teamId) {
    await teamAccess(user, teamId, 'manage');
    return [{ view: { kind: 'team', id: teamId } }];
  }
  if (isAdmin(user)) return [{ view: { kind: 'all' } }];
  const own: BreakdownView = { kind: 'user', id: user.id };
  if (kind !== 'team') return [{ view: own }];
  const owned = (await readMemberships(user.id)).filter((m) => m.role === 'owner').map((m) => m.team_id);
  return [{ view: own, except: new Set(owned) }, ...owned.map((id) => ({ view: { kind: 'team' as const, id } }))];
}

async function namesOf(kind: BreakdownKind, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const named = <T>(found: Map<string, T>, name: (t: T) => string) => new Map([...found].map(([id, t]) => [id, name(t)]));
  switch (kind) {
    case 'team':
      return named(await getTeams(ids), (t) => t.name);
    case 'user':
      return named(await getUsers(ids), (u) => u.email);
    case 'key':
      // The key's name and its prefix (`mo_` + 8 characters), never more of the secret.
      return named(await getApiKeyRecords(ids), (k) => `${k.name} (${k.prefix}…)`);
    case 'resource':
      return named(await resourcesById(ids), (r) => r.name);
    case 'route':
      return named(await getRoutes(ids), (r) => r.name);
    case 'model':
      return new Map(ids.map((id) => [id, id]));
  }
}

const figuresOf = (s: SpendFigures): BreakdownFigures => ({
  cost_usd: usdText(s.cost),
  tokens_in: s.tokensIn,
  tokens_out: s.tokensOut,
  cached_tokens: s.cachedTokens,
  requests: s.requests,
});

/** GET /api/usage/breakdown as JSON; `readUnits` is what its Queries cost (the bench's figure). */
export async function usageBreakdown(user: User, query: BreakdownQuery, now = new Date()): Promise<Breakdown & { readUnits: number }> {
  const { from, to } = breakdownRange(query, now);
  const groupBy = query.groupBy ?? 'model';
  const views = await viewsFor(user, groupBy, query.teamId);
  const reads = await Promise.all(views.map(async (v) => ({ ...v, read: await readBreakdown(v.view, groupBy, from, to) })));
  const rows: BreakdownRow[] = reads.flatMap(({ read, except }) => read.rows.filter((r) => !except?.has(r.groupId)));

  const totals = new Map<string, SpendFigures>();
  const days = new Map<string, Map<string, SpendFigures>>();
  for (const row of rows) {
    totals.set(row.groupId, addSpend(totals.get(row.groupId), row));
    const ofGroup = days.get(row.groupId) ?? new Map<string, SpendFigures>();
    days.set(row.groupId, ofGroup.set(row.day, addSpend(ofGroup.get(row.day), row)));
  }
  const names = await namesOf(groupBy, [...totals.keys()]);
  const entries: BreakdownEntry[] = [...totals]
    .sort(([a, x], [b, y]) => y.cost - x.cost || (a < b ? -1 : 1))
    .map(([id, total]) => ({
      group: { id, name: names.get(id) ?? null },
      ...figuresOf(total),
      by_day: [...(days.get(id) ?? [])]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([date, d]) => ({ date, cost_usd: usdText(d.cost), requests: d.requests })),
    }));
  return {
    from,
    to,
    groupBy,
    ...(query.teamId && { teamId: query.teamId }),
    rows: entries,
    readUnits: reads.reduce((n, r) => n + r.read.readUnits, 0),
  };
}

// ------------------------------------------------------------------------------------------ CSV

const BREAKDOWN_CSV_HEADER = ['group_id', 'group_name', 'cost_usd', 'tokens_in', 'tokens_out', 'cached_tokens', 'requests'] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. A
 * cell a spreadsheet would run as a formula (starting with = + - @, or a tab or carriage return) is
 * prefixed with ' first: a key or team name is the caller's text, and must open as text.
 */
function csvCell(value: string | number | null): string {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The breakdown as CSV: a header row, then one row per group; CRLF line ends (RFC 4180). */
export function breakdownCsv(breakdown: Breakdown): string {
  const lines = [BREAKDOWN_CSV_HEADER.join(',')];
  for (const r of breakdown.rows) {
    lines.push([r.group.id, r.group.name, r.cost_usd, r.tokens_in, r.tokens_out, r.cached_tokens, r.requests].map(csvCell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
