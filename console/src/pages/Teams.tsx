import { useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, usePaged, useQuery } from '../api/hooks';
import { getSession, isAdmin } from '../api/session';
import { AlertThresholdsField, thresholdsOf, thresholdsText } from '../components/AlertThresholdsField';
import { ConfirmDialog, ErrorText, Facts, Field, PageTitle, Spinner, TableBox, UsdField } from '../components/ui';
import { dateTime, int, usd } from '../format';
import { MemberForm, MyInvitations, PendingInvitations } from './TeamInvitations';

type Team = Schemas['Team'];
type Member = Schemas['TeamMember'];

/** This month's spend against a budget, as a bar with its figures (no budget: the spend alone). */
function SpendBar({ spent, budget, label }: { spent: number; budget: number | null; label: string }) {
  if (budget === null) return <span>{usd(spent)} (no budget)</span>;
  return (
    <span className="spend">
      <meter min={0} max={Math.max(budget, spent, 1e-9)} low={budget * 0.8} high={budget * 0.95} optimum={0} value={spent} aria-label={label} />
      <span>
        {usd(spent)} of {usd(budget)}
      </span>
    </span>
  );
}

const limit = (value: number | null | undefined, unit: string) => (value === null || value === undefined ? 'none' : `${int(value)} ${unit}`);
/** A number field's value for the API: empty is absent (or null, to clear, when `clear`). */
const amount = (text: string, clear = false) => (text.trim() === '' ? (clear ? null : undefined) : Number(text));

/**
 * Teams (issue 25): admins see and create every team; everyone else sees the teams they belong to,
 * and answers the invitations they have (issue 33). Each row shows the month's spend against the
 * team's budget as a bar, and its rate limits.
 */
export default function Teams() {
  const session = getSession();
  const admin = isAdmin(session?.user.role);
  const list = usePaged(async (cursor?: string) => {
    const res = await unwrap(api.GET('/api/teams', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }));
    return { items: res.teams, nextCursor: res.nextCursor };
  });
  return (
    <section>
      <PageTitle>Teams</PageTitle>
      <p className="lead">
        {admin
          ? 'Every team, with its budget, rate limits and what it has spent this month.'
          : 'The teams you belong to. A team key spends for its team: create one on the API keys page.'}
      </p>
      <MyInvitations onJoined={() => void list.first.reload()} />
      {admin ? <CreateTeam onCreated={() => void list.first.reload()} /> : null}
      {list.first.loading && !list.first.data ? <Spinner label="Loading teams…" /> : null}
      <ErrorText error={list.first.error} />
      {list.first.data && list.items.length === 0 ? <p>{admin ? 'No teams yet.' : 'You are not in a team yet.'}</p> : null}
      {list.items.length ? (
        <TableBox label="Teams" columns={['Team', 'Your role', 'Spent this month', 'Requests per minute', 'Tokens per minute', 'Active keys']}>
          {list.items.map((t) => (
            <tr key={t.id}>
              <th scope="row">
                <Link href={`/teams/${t.id}`}>{t.name}</Link>
              </th>
              <td>{t.my_role ?? '—'}</td>
              <td>
                <SpendBar spent={t.spent_usd} budget={t.monthly_budget_usd} label={`${t.name}: spent this month against its budget`} />
              </td>
              <td>{limit(t.rpm_limit, 'rpm')}</td>
              <td>{limit(t.tpm_limit, 'tpm')}</td>
              <td>{t.active_keys}</td>
            </tr>
          ))}
        </TableBox>
      ) : null}
      {list.hasMore ? (
        <button type="button" onClick={() => void list.more.run()} disabled={list.more.pending}>
          {list.more.pending ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </section>
  );
}

function CreateTeam({ onCreated }: { onCreated: () => void }) {
  const empty = { name: '', budget: '', rpm: '', tpm: '' };
  const [form, setForm] = useState(empty);
  const set = (key: keyof typeof empty) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  const create = useAction(async (e: FormEvent) => {
    e.preventDefault();
    const body = { name: form.name.trim(), monthly_budget_usd: amount(form.budget), rpm_limit: amount(form.rpm), tpm_limit: amount(form.tpm) };
    const res = await unwrap(api.POST('/api/teams', { body: body as Schemas['CreateTeamRequest'] }));
    setForm(empty);
    onCreated();
    return res;
  });
  return (
    <form className="panel" onSubmit={(e) => void create.run(e)} aria-labelledby="new-team">
      <h2 id="new-team">New team</h2>
      <div className="row">
        <Field label="Team name" hint="Sign-on groups name it too (for example team-<name>).">
          {(id, hint) => <input id={id} aria-describedby={hint} value={form.name} onChange={set('name')} required maxLength={64} />}
        </Field>
        <UsdField label="Team budget (USD a month)" value={form.budget} onChange={(budget) => setForm((f) => ({ ...f, budget }))} />
        <Field label="Requests per minute">{(id) => <input id={id} type="number" min={1} step={1} value={form.rpm} onChange={set('rpm')} />}</Field>
        <Field label="Tokens per minute">{(id) => <input id={id} type="number" min={1} step={1} value={form.tpm} onChange={set('tpm')} />}</Field>
      </div>
      <button type="submit" className="primary" disabled={create.pending}>
        Create team
      </button>
      <ErrorText error={create.error} />
    </form>
  );
}

/**
 * One team: its figures, its members with their budgets and spend; owners and admins manage them and
 * invite people (admins may also add someone directly).
 */
export function TeamDetail() {
  const { id } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const session = getSession();
  const admin = isAdmin(session?.user.role);
  const team = useQuery(() => unwrap(api.GET('/api/teams/{teamId}', { params: { path: { teamId: id } } })), [id]);
  const members = usePaged(async (cursor?: string) => {
    const res = await unwrap(
      api.GET('/api/teams/{teamId}/members', { params: { path: { teamId: id }, query: { limit: 100, ...(cursor ? { cursor } : {}) } } }),
    );
    return { items: res.members, nextCursor: res.nextCursor };
  });
  const [removing, setRemoving] = useState<Member>();
  const [deleting, setDeleting] = useState(false);
  const [invited, setInvited] = useState(0);
  const t = team.data?.team;
  const manages = admin || t?.my_role === 'owner';
  const remove = useAction(async (m: Member) => {
    await unwrap(api.DELETE('/api/teams/{teamId}/members/{userId}', { params: { path: { teamId: id, userId: m.user_id } } }));
    if (m.user_id === session?.user.id && !admin) navigate('/teams');
    else await Promise.all([members.first.reload(), team.reload()]);
    return true;
  });
  const drop = useAction(async () => {
    await unwrap(api.DELETE('/api/teams/{teamId}', { params: { path: { teamId: id } } }));
    navigate('/teams');
    return true;
  });
  return (
    <section>
      <PageTitle>{t ? `Team ${t.name}` : 'Team'}</PageTitle>
      <p>
        <Link href="/teams">All teams</Link>
      </p>
      {team.loading && !t ? <Spinner label="Loading the team…" /> : null}
      <ErrorText error={team.error} />
      {t ? (
        <>
          <Facts
            items={[
              [
                'Spent this month',
                <SpendBar key="s" spent={t.spent_usd} budget={t.monthly_budget_usd} label="The team's spend this month against its budget" />,
              ],
              ['Requests per minute', limit(t.rpm_limit, 'rpm')],
              ['Tokens per minute', limit(t.tpm_limit, 'tpm')],
              ['Service tiers', t.allowed_service_tiers ? t.allowed_service_tiers.join(', ') : 'every tier'],
              ['Active keys', t.active_keys],
              ['Your role', t.my_role ?? '—'],
              ['Created', dateTime(t.created_at)],
            ]}
          />
          {admin ? <EditTeam team={t} onSaved={(changed) => team.setData({ success: true, team: changed })} /> : null}
        </>
      ) : null}
      <h2>Members</h2>
      <ErrorText error={members.first.error} />
      {members.items.length ? (
        <TableBox label="Members" columns={['Member', 'Role', 'Budget and spend this month', 'From', 'Joined', ...(manages ? ['Actions'] : [])]}>
          {members.items.map((m) => (
            <MemberRow
              key={m.user_id}
              member={m}
              manages={manages}
              isMe={m.user_id === session?.user.id}
              onChanged={(changed) => members.replace((x) => x.user_id === changed.user_id, changed)}
              onRemove={() => setRemoving(m)}
            />
          ))}
        </TableBox>
      ) : members.first.data ? (
        <p>No members yet.</p>
      ) : null}
      {manages && t ? (
        <>
          <PendingInvitations teamId={t.id} version={invited} />
          <MemberForm teamId={t.id} mode="invite" onDone={() => setInvited((n) => n + 1)} />
        </>
      ) : null}
      {admin && t ? <MemberForm teamId={t.id} mode="add" onDone={() => void members.first.reload()} /> : null}
      {t?.my_role && !manages ? (
        <button type="button" className="small danger" onClick={() => setRemoving(members.items.find((m) => m.user_id === session?.user.id))}>
          Leave the team…
        </button>
      ) : null}
      {admin && t ? (
        <p>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete the team…
          </button>
        </p>
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        title={removing?.user_id === session?.user.id ? 'Leave this team?' : `Remove ${removing?.username ?? 'this member'}?`}
        confirmLabel={removing?.user_id === session?.user.id ? 'Leave' : 'Remove'}
        danger
        pending={remove.pending}
        error={remove.error}
        onCancel={() => setRemoving(undefined)}
        onConfirm={async () => {
          if (removing && (await remove.run(removing))) setRemoving(undefined);
        }}
      >
        <p>Their API keys of this team are revoked at once.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting}
        title={`Delete the team ${t?.name ?? ''}?`}
        confirmLabel="Delete"
        danger
        pending={drop.pending}
        error={drop.error}
        onCancel={() => setDeleting(false)}
        onConfirm={async () => {
          if (await drop.run()) setDeleting(false);
        }}
      >
        <p>Its memberships go with it. A team with active API keys cannot be deleted: revoke them first.</p>
      </ConfirmDialog>
    </section>
  );
}

function EditTeam({ team, onSaved }: { team: Team; onSaved: (team: Team) => void }) {
  const text = (v: number | null) => (v === null ? '' : String(v));
  const [form, setForm] = useState({
    budget: text(team.monthly_budget_usd),
    alertAt: thresholdsText(team.alert_thresholds),
    rpm: text(team.rpm_limit),
    tpm: text(team.tpm_limit),
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  const save = useAction(async (e: FormEvent) => {
    e.preventDefault();
    const body = {
      monthly_budget_usd: amount(form.budget, true),
      alert_thresholds: thresholdsOf(form.alertAt),
      rpm_limit: amount(form.rpm, true),
      tpm_limit: amount(form.tpm, true),
    };
    const res = await unwrap(api.PATCH('/api/teams/{teamId}', { params: { path: { teamId: team.id } }, body }));
    onSaved(res.team);
    return res;
  });
  return (
    <form className="panel" onSubmit={(e) => void save.run(e)} aria-labelledby="edit-team">
      <h2 id="edit-team">Budget and limits</h2>
      <div className="row">
        <UsdField
          label="Team budget (USD a month)"
          hint="Empty for none."
          value={form.budget}
          onChange={(budget) => setForm((f) => ({ ...f, budget }))}
        />
        <AlertThresholdsField value={form.alertAt} onChange={(v) => setForm((f) => ({ ...f, alertAt: v }))} />
        <Field label="Requests per minute" hint="Empty for no limit.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="number" min={1} step={1} value={form.rpm} onChange={set('rpm')} />}
        </Field>
        <Field label="Tokens per minute" hint="Empty for no limit.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="number" min={1} step={1} value={form.tpm} onChange={set('tpm')} />}
        </Field>
      </div>
      <button type="submit" disabled={save.pending}>
        Save
      </button>
      {save.error ? <ErrorText error={save.error} /> : null}
    </form>
  );
}

function MemberRow(props: { member: Member; manages: boolean; isMe: boolean; onChanged: (m: Member) => void; onRemove: () => void }) {
  const { member: m } = props;
  const [budget, setBudget] = useState(m.monthly_budget_usd === null ? '' : String(m.monthly_budget_usd));
  const [alertAt, setAlertAt] = useState(thresholdsText(m.alert_thresholds));
  const change = useAction(async (body: Schemas['UpdateTeamMemberRequest']) => {
    const res = await unwrap(api.PATCH('/api/teams/{teamId}/members/{userId}', { params: { path: { teamId: m.team_id, userId: m.user_id } }, body }));
    props.onChanged(res.member);
    return res;
  });
  return (
    <tr>
      <th scope="row">
        {m.username} <span className="hint">{m.email}</span>
      </th>
      <td>
        {props.manages ? (
          <select
            aria-label={`Role of ${m.username}`}
            value={m.role}
            disabled={change.pending}
            onChange={(e) => void change.run({ role: e.target.value as Member['role'] })}
          >
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
        ) : (
          m.role
        )}
      </td>
      <td>
        <SpendBar spent={m.spent_usd} budget={m.monthly_budget_usd} label={`${m.username}: spent for the team this month against their budget`} />
        {props.manages ? (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void change.run({ monthly_budget_usd: amount(budget, true), alert_thresholds: thresholdsOf(alertAt) });
            }}
          >
            <input
              aria-label={`Budget of ${m.username} (USD a month, empty for none)`}
              type="number"
              min={0}
              step="any"
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
            />
            <input
              aria-label={`Alert thresholds of ${m.username} (% of budget, comma-separated; empty for 80, 100)`}
              inputMode="decimal"
              placeholder="80, 100"
              size={10}
              value={alertAt}
              onChange={(e) => setAlertAt(e.target.value)}
            />
            <button type="submit" className="small" disabled={change.pending}>
              Set budget
            </button>
          </form>
        ) : null}
        <ErrorText error={change.error} />
      </td>
      <td>{m.source === 'sso' ? 'sign-on group' : m.source === 'invitation' ? 'accepted an invitation' : 'added by an admin'}</td>
      <td>{dateTime(m.joined_at)}</td>
      {props.manages ? (
        <td>
          <button type="button" className="small danger" onClick={props.onRemove}>
            {props.isMe ? 'Leave…' : 'Remove…'}
          </button>
        </td>
      ) : null}
    </tr>
  );
}
