import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useAction, useQuery } from '../api/hooks';
import { AlertThresholdsField, thresholdsOf, thresholdsText } from '../components/AlertThresholdsField';
import { CopyButton, DangerDialog, ErrorText, Field, PageTitle, Spinner, TableBox, UsdField } from '../components/ui';
import { dateTime, usd } from '../format';

/**
 * The caller's API keys for the OpenAI-compatible gateway (/v1): create one (its secret is shown
 * once, here, and never again: the service keeps only its hash), see what each has spent this month,
 * revoke one. Every create and revocation is in the audit log.
 */
export default function Keys() {
  // The caller's teams: a key may be made for one of them (it then spends for the team), and the
  // keys of a team the caller owns may be listed and revoked here.
  const teams = useQuery(() => unwrap(api.GET('/api/teams', { params: { query: { scope: 'user', limit: 100 } } })), []);
  const [showing, setShowing] = useState('');
  const keys = useQuery(() => unwrap(api.GET('/api/keys', { params: { query: showing ? { team_id: showing } : {} } })), [showing]);
  const [name, setName] = useState('');
  const [budget, setBudget] = useState('');
  const [alertAt, setAlertAt] = useState('');
  const [teamId, setTeamId] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string; team?: string }>();
  const [revoking, setRevoking] = useState<{ id: string; name: string }>();
  const teamName = (id: string | null) => teams.data?.teams.find((t) => t.id === id)?.name;
  const owned = (teams.data?.teams ?? []).filter((t) => t.my_role === 'owner');
  const create = useAction(async (e: FormEvent) => {
    e.preventDefault();
    const thresholds = thresholdsOf(alertAt);
    const res = await unwrap(
      api.POST('/api/keys', {
        body: {
          name: name.trim(),
          ...(budget.trim() ? { monthly_budget_usd: Number(budget) } : {}),
          ...(thresholds ? { alert_thresholds: thresholds } : {}),
          ...(teamId ? { team_id: teamId } : {}),
        },
      }),
    );
    setCreated({ name: res.name, key: res.key, team: teamName(res.team_id) });
    setName('');
    setBudget('');
    setAlertAt('');
    await keys.reload();
    return res;
  });
  const revoke = useAction(async (id: string) => {
    await unwrap(api.DELETE('/api/keys/{keyId}', { params: { path: { keyId: id } } }));
    await keys.reload();
    return true;
  });
  const base = `${window.location.origin}/v1`;
  return (
    <section>
      <PageTitle>API keys</PageTitle>
      <p className="lead">
        Keys let OpenAI clients call your deployed models at <span className="mono">{base}</span>: the model is the resource's endpoint name.
      </p>
      <form className="panel" onSubmit={(e) => void create.run(e)} aria-labelledby="new-key">
        <h2 id="new-key">New key</h2>
        <div className="row">
          <Field label="Key name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />}</Field>
          <UsdField
            label="Monthly budget (USD)"
            hint="Calls are refused once this month's spend would pass it; empty for none."
            value={budget}
            onChange={setBudget}
          />
          <AlertThresholdsField value={alertAt} onChange={setAlertAt} />
          <Field label="Team" hint="A team key spends for the team, within its budget; its owners manage it too.">
            {(id, hint) => (
              <select id={id} aria-describedby={hint} value={teamId} onChange={(e) => setTeamId(e.target.value)}>
                <option value="">Personal key (no team)</option>
                {(teams.data?.teams ?? []).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <button type="submit" className="primary" disabled={create.pending}>
          Create key
        </button>
        <ErrorText error={create.error} />
      </form>
      {created ? (
        <section className="panel success" aria-labelledby="created-key" aria-live="polite">
          <h2 id="created-key">
            Key {created.name} created{created.team ? ` for the team ${created.team}` : ''}
          </h2>
          <p>Copy it now: this is the only time it is shown.</p>
          <p>
            <span className="mono" aria-label="The new key">
              {created.key}
            </span>{' '}
            <CopyButton text={created.key} />
          </p>
          <pre className="mono small">{`curl ${base}/chat/completions -H "Authorization: Bearer ${created.key}" \\\n  -H 'Content-Type: application/json' \\\n  -d '{"model":"<endpoint name>","messages":[{"role":"user","content":"Hello"}]}'`}</pre>
          <button type="button" className="small" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </section>
      ) : null}
      {owned.length ? (
        <Field label="Show the keys of" className="inline-form">
          {(id) => (
            <select id={id} value={showing} onChange={(e) => setShowing(e.target.value)}>
              <option value="">You</option>
              {owned.map((t) => (
                <option key={t.id} value={t.id}>
                  the team {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {keys.loading && !keys.data ? <Spinner label="Loading your keys…" /> : null}
      <ErrorText error={keys.error} />
      {keys.data ? (
        keys.data.keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <TableBox
            label={showing ? `Keys of the team ${teamName(showing) ?? ''}` : 'Your API keys'}
            columns={['Name', 'Key', 'Team', 'Created', 'Budget', 'Alerts at', 'Spent this month', 'State', '']}
          >
            {keys.data.keys.map((k) => (
              <tr key={k.id}>
                <th scope="row">{k.name}</th>
                <td className="mono">{k.prefix}…</td>
                <td>{k.team_id ? (teamName(k.team_id) ?? 'a team') : '—'}</td>
                <td>{dateTime(k.created_at)}</td>
                <td>{k.monthly_budget_usd === null ? 'none' : usd(k.monthly_budget_usd)}</td>
                <td>{`${thresholdsText(k.alert_thresholds)} %`}</td>
                <td>{usd(k.spent_usd)}</td>
                <td>
                  {k.revoked_at ? `revoked ${dateTime(k.revoked_at)}` : k.expires_at && Date.parse(k.expires_at) < Date.now() ? 'expired' : 'active'}
                </td>
                <td>
                  {k.revoked_at ? null : (
                    <button type="button" className="small danger" onClick={() => setRevoking({ id: k.id, name: k.name })}>
                      Revoke…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </TableBox>
        )
      ) : null}
      <DangerDialog
        item={revoking}
        title={`Revoke ${revoking?.name ?? 'this key'}?`}
        confirmLabel="Revoke"
        pending={revoke.pending}
        error={revoke.error}
        run={(it) => revoke.run(it.id)}
        onClose={() => setRevoking(undefined)}
      >
        <p>Every client using it is refused from its next call. This cannot be undone.</p>
      </DangerDialog>
    </section>
  );
}
