import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useAction, useQuery } from '../api/hooks';
import { ConfirmDialog, CopyButton, ErrorText, Field, PageTitle, Spinner, TableBox } from '../components/ui';
import { dateTime, usd } from '../format';

/**
 * The caller's API keys for the OpenAI-compatible gateway (/v1): create one (its secret is shown
 * once, here, and never again: the service keeps only its hash), see what each has spent this month,
 * revoke one. Every create and revocation is in the audit log.
 */
export default function Keys() {
  const keys = useQuery(() => unwrap(api.GET('/api/keys')), []);
  const [name, setName] = useState('');
  const [budget, setBudget] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [revoking, setRevoking] = useState<{ id: string; name: string }>();
  const create = useAction(async (e: FormEvent) => {
    e.preventDefault();
    const res = await unwrap(
      api.POST('/api/keys', { body: { name: name.trim(), ...(budget.trim() ? { monthly_budget_usd: Number(budget) } : {}) } }),
    );
    setCreated({ name: res.name, key: res.key });
    setName('');
    setBudget('');
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
          <Field label="Monthly budget (USD)" hint="Calls are refused once this month's spend would pass it; empty for none.">
            {(id, hint) => (
              <input id={id} aria-describedby={hint} type="number" min={0} step="any" value={budget} onChange={(e) => setBudget(e.target.value)} />
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
          <h2 id="created-key">Key {created.name} created</h2>
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
      {keys.loading && !keys.data ? <Spinner label="Loading your keys…" /> : null}
      <ErrorText error={keys.error} />
      {keys.data ? (
        keys.data.keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <TableBox label="Your API keys" columns={['Name', 'Key', 'Created', 'Budget', 'Spent this month', 'State', '']}>
            {keys.data.keys.map((k) => (
              <tr key={k.id}>
                <th scope="row">{k.name}</th>
                <td className="mono">{k.prefix}…</td>
                <td>{dateTime(k.created_at)}</td>
                <td>{k.monthly_budget_usd === null ? 'none' : usd(k.monthly_budget_usd)}</td>
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
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke ${revoking?.name ?? 'this key'}?`}
        confirmLabel="Revoke"
        danger
        pending={revoke.pending}
        error={revoke.error}
        onCancel={() => setRevoking(undefined)}
        onConfirm={async () => {
          if (revoking && (await revoke.run(revoking.id))) setRevoking(undefined);
        }}
      >
        <p>Every client using it is refused from its next call. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
