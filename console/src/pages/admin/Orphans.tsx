import { useState } from 'react';
import { Link } from 'wouter';
import { api, unwrap, type Schemas } from '../../api/client';
import { useAction, useQuery } from '../../api/hooks';
import { GuardrailFields } from '../../components/GuardrailFields';
import { ConfirmDialog, DangerDialog, ErrorText, PageTitle, Spinner, TableBox } from '../../components/ui';
import { dateTime, int, usd } from '../../format';

type Orphan = Schemas['Orphan'];

/**
 * Endpoints on the dedicated platform that carry this service's tags but no resource tracks (a deploy
 * whose record was lost, say), as the reconciler found them. They bill by the hour like any endpoint,
 * so each is adopted (tracked from now, with guardrails) or deleted. Both are audited.
 */
export default function Orphans() {
  const orphans = useQuery(() => unwrap(api.GET('/api/admin/orphans', { params: { query: { limit: 100 } } })), []);
  const [adopting, setAdopting] = useState<Orphan>();
  const [deleting, setDeleting] = useState<Orphan>();
  const [idle, setIdle] = useState('');
  const [budget, setBudget] = useState('');
  const [adopted, setAdopted] = useState<{ id: string; name: string }>();
  const adopt = useAction(async (name: string) => {
    const body = {
      ...(idle.trim() ? { idleTimeoutMinutes: Number(idle) } : {}),
      ...(budget.trim() ? { monthlyBudgetUsd: Number(budget) } : {}),
    };
    const res = await unwrap(api.POST('/api/admin/orphans/{endpointName}/adopt', { params: { path: { endpointName: name } }, body }));
    setAdopted({ id: res.id, name });
    await orphans.reload();
    return true;
  });
  const remove = useAction(async (name: string) => {
    await unwrap(api.DELETE('/api/admin/orphans/{endpointName}', { params: { path: { endpointName: name }, query: { confirm: true } } }));
    await orphans.reload();
    return true;
  });
  const list = orphans.data?.orphans ?? [];
  const hourly = list.reduce((sum, o) => sum + (o.hourly_cost_usd ?? 0), 0);
  return (
    <section>
      <PageTitle>Orphan endpoints</PageTitle>
      <p className="lead">
        Endpoints with this service's tags that no resource tracks. They bill by the hour until they are adopted (and guarded) or deleted.
        {orphans.data ? ` Last reconciliation: ${orphans.data.lastReconciledAt ? dateTime(orphans.data.lastReconciledAt) : 'not yet'}.` : ''}
      </p>
      {adopted ? (
        <p className="panel success" aria-live="polite">
          {adopted.name} is now tracked: <Link href={`/resources/${adopted.id}`}>open the resource</Link>.
        </p>
      ) : null}
      {orphans.loading && !orphans.data ? <Spinner label="Loading orphans…" /> : null}
      <ErrorText error={orphans.error} />
      {orphans.data ? (
        list.length === 0 ? (
          <p>No orphans: every tagged endpoint is tracked.</p>
        ) : (
          <>
            <p>
              {int(list.length)} orphan{list.length === 1 ? '' : 's'}, billing {usd(hourly)} an hour together.
            </p>
            <TableBox label="Orphan endpoints" columns={['Endpoint', 'Status', 'Instances', 'Per hour', 'Created on the platform', 'Found', '']}>
              {list.map((o) => (
                <tr key={o.endpoint_name}>
                  <th scope="row" className="mono">
                    {o.endpoint_name}
                  </th>
                  <td>{o.status}</td>
                  <td>
                    {o.kind === 'inference_profile'
                      ? `Bedrock inference profile${
                          o.tags
                            ? ` (${Object.entries(o.tags)
                                .map(([k, v]) => `${k}=${v}`)
                                .join(', ')})`
                            : ''
                        }`
                      : o.instance_type
                        ? `${int(o.instance_count)} × ${o.instance_type}`
                        : '—'}
                  </td>
                  <td>{o.hourly_cost_usd === null ? 'unknown' : usd(o.hourly_cost_usd)}</td>
                  <td>{dateTime(o.platform_created_at)}</td>
                  <td>{dateTime(o.found_at)}</td>
                  <td>
                    {o.kind === 'inference_profile' ? null : (
                      <>
                        <button type="button" className="small" onClick={() => setAdopting(o)}>
                          Adopt…
                        </button>{' '}
                      </>
                    )}
                    <button type="button" className="small danger" onClick={() => setDeleting(o)}>
                      Delete…
                    </button>
                  </td>
                </tr>
              ))}
            </TableBox>
          </>
        )
      ) : null}
      <ConfirmDialog
        open={adopting !== undefined}
        title={`Adopt ${adopting?.endpoint_name ?? 'this endpoint'}?`}
        confirmLabel="Adopt"
        pending={adopt.pending}
        error={adopt.error}
        onCancel={() => setAdopting(undefined)}
        onConfirm={async () => {
          if (adopting && (await adopt.run(adopting.endpoint_name))) setAdopting(undefined);
        }}
      >
        <p>It becomes a tracked dedicated resource, billed and watched from now. Guardrails stop it when it idles or spends its budget.</p>
        <GuardrailFields idle={idle} onIdle={setIdle} budget={budget} onBudget={setBudget} />
      </ConfirmDialog>
      <DangerDialog
        item={deleting}
        title={`Delete ${deleting?.endpoint_name ?? 'this endpoint'}?`}
        confirmLabel="Delete"
        pending={remove.pending}
        error={remove.error}
        run={(it) => remove.run(it.endpoint_name)}
        onClose={() => setDeleting(undefined)}
      >
        <p>The endpoint, its configuration and its model are deleted on the platform. This cannot be undone.</p>
      </DangerDialog>
    </section>
  );
}
