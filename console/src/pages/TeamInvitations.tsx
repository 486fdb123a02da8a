import { useState, type FormEvent, type ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useQuery } from '../api/hooks';
import { ErrorText, Field, TableBox, UsdField } from '../components/ui';
import { dateTime, usd } from '../format';

type Invitation = Schemas['TeamInvitation'];
type Role = Schemas['TeamRole'];

const budget = (value: number | null) => (value === null ? 'no budget of their own' : `${usd(value)} a month`);

/** An invitation as both lists show it (named by its team, or by its invitee), with the viewer's actions last. */
function InvitationRow({ invitation: inv, name, children }: { invitation: Invitation; name: string; children: ReactNode }) {
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{inv.role}</td>
      <td>{budget(inv.monthly_budget_usd)}</td>
      <td>{inv.invited_by.username}</td>
      <td>{dateTime(inv.expires_at)}</td>
      <td>{children}</td>
    </tr>
  );
}

/**
 * Nobody joins a team without their consent (issue 33): a team's owners invite, and the invited user
 * accepts or declines here. Admins may still add someone directly (the team's page).
 */
export function MyInvitations({ onJoined }: { onJoined: () => void }) {
  const mine = useQuery(() => unwrap(api.GET('/api/teams/invitations', { params: { query: { limit: 100 } } })), []);
  const answer = useAction(async (inv: Invitation, how: 'accept' | 'decline') => {
    const path = { params: { path: { teamId: inv.team_id, invitationId: inv.id } } };
    if (how === 'accept') await unwrap(api.POST('/api/teams/{teamId}/invitations/{invitationId}/accept', path));
    else await unwrap(api.POST('/api/teams/{teamId}/invitations/{invitationId}/decline', path));
    mine.setData({ success: true, invitations: (mine.data?.invitations ?? []).filter((i) => i.id !== inv.id), nextCursor: null });
    if (how === 'accept') onJoined();
    return true;
  });
  const invitations = mine.data?.invitations ?? [];
  if (!invitations.length && !mine.error) return null;
  return (
    <div className="panel">
      <h2>Invitations for you</h2>
      <ErrorText error={mine.error} />
      {invitations.length ? (
        <TableBox label="Invitations for you" columns={['Team', 'Role', 'Your budget in it', 'Invited by', 'Expires', 'Answer']}>
          {invitations.map((inv) => (
            <InvitationRow key={inv.id} invitation={inv} name={inv.team_name}>
              <button type="button" className="small primary" disabled={answer.pending} onClick={() => void answer.run(inv, 'accept')}>
                Join {inv.team_name}
              </button>{' '}
              <button type="button" className="small" disabled={answer.pending} onClick={() => void answer.run(inv, 'decline')}>
                Decline
              </button>
            </InvitationRow>
          ))}
        </TableBox>
      ) : null}
      <p className="hint">Once you join, your calls count against the team&apos;s budgets and rate limits, and its members see your spend in it.</p>
      <ErrorText error={answer.error} />
    </div>
  );
}

/** A team's pending invitations, for its owners and admins, each of which may be withdrawn. */
export function PendingInvitations({ teamId, version }: { teamId: string; version: number }) {
  const pending = useQuery(
    () => unwrap(api.GET('/api/teams/{teamId}/invitations', { params: { path: { teamId }, query: { limit: 100 } } })),
    [teamId, version],
  );
  const revoke = useAction(async (inv: Invitation) => {
    await unwrap(api.DELETE('/api/teams/{teamId}/invitations/{invitationId}', { params: { path: { teamId, invitationId: inv.id } } }));
    await pending.reload();
    return true;
  });
  const invitations = pending.data?.invitations ?? [];
  return (
    <>
      <h2>Pending invitations</h2>
      <ErrorText error={pending.error} />
      {invitations.length ? (
        <TableBox label="Pending invitations" columns={['Invited', 'Role', 'Budget', 'Invited by', 'Expires', 'Actions']}>
          {invitations.map((inv) => (
            <InvitationRow key={inv.id} invitation={inv} name={inv.invitee}>
              <button type="button" className="small danger" disabled={revoke.pending} onClick={() => void revoke.run(inv)}>
                Withdraw
              </button>
            </InvitationRow>
          ))}
        </TableBox>
      ) : pending.data ? (
        <p>No pending invitations.</p>
      ) : null}
      <ErrorText error={revoke.error} />
    </>
  );
}

/**
 * Adds a member (admins: `add`) or invites someone (owners and admins: `invite`), by username or
 * e-mail, with a role and a budget within the team.
 */
export function MemberForm({ teamId, mode, onDone }: { teamId: string; mode: 'add' | 'invite'; onDone: () => void }) {
  const empty = { username: '', role: 'member' as Role, budget: '' };
  const [form, setForm] = useState(empty);
  const [sent, setSent] = useState<string>();
  const submit = useAction(async (e: FormEvent) => {
    e.preventDefault();
    setSent(undefined);
    const amount = form.budget.trim() === '' ? {} : { monthly_budget_usd: Number(form.budget) };
    const body = { username: form.username.trim(), role: form.role, ...amount };
    const params = { params: { path: { teamId } }, body };
    if (mode === 'add') await unwrap(api.POST('/api/teams/{teamId}/members', params));
    else setSent((await unwrap(api.POST('/api/teams/{teamId}/invitations', params))).invitation.invitee);
    setForm(empty);
    onDone();
    return true;
  });
  const heading = mode === 'add' ? 'Add a member' : 'Invite someone';
  const id = mode === 'add' ? 'add-member' : 'invite-member';
  return (
    <form className="panel" onSubmit={(e) => void submit.run(e)} aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      {mode === 'invite' ? <p className="hint">They join when they accept, on their Teams page; the invitation expires after 7 days.</p> : null}
      <div className="row">
        <Field label={mode === 'add' ? 'Username or e-mail' : 'Invitee'} hint={mode === 'add' ? undefined : 'Their username or e-mail address.'}>
          {(fid, hint) => (
            <input
              id={fid}
              aria-describedby={hint}
              value={form.username}
              onChange={(e) => setForm((f) => ({ ...f, username: e.target.value }))}
              required
            />
          )}
        </Field>
        <Field label={mode === 'add' ? 'Role' : 'Invited as'}>
          {(fid) => (
            <select id={fid} value={form.role} onChange={(e) => setForm((f) => ({ ...f, role: e.target.value as Role }))}>
              <option value="member">member</option>
              <option value="owner">owner (manages members and keys)</option>
            </select>
          )}
        </Field>
        <UsdField
          label={mode === 'add' ? 'Member budget (USD a month)' : 'Their budget (USD a month)'}
          hint="Their own limit within the team; empty for none."
          value={form.budget}
          onChange={(budget) => setForm((f) => ({ ...f, budget }))}
        />
      </div>
      <button type="submit" className="primary" disabled={submit.pending}>
        {mode === 'add' ? 'Add member' : 'Send invitation'}
      </button>
      {sent ? <p role="status">Invitation sent to {sent}.</p> : null}
      <ErrorText error={submit.error} />
    </form>
  );
}
