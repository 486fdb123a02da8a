import { useState } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useAction } from '../../api/hooks';
import { ErrorText, PageTitle, Spinner, TableBox } from '../../components/ui';
import { dateTime, int } from '../../format';
import { usePlatforms } from '../../api/platforms';
import { PlatformsPending } from '../../components/Platforms';

type Report = Schemas['PlatformSyncReport'];

const runSync = () => unwrap(api.POST('/api/admin/sync-models'));

export default function Sync() {
  const sync = useAction(runSync);
  const [result, setResult] = useState<Awaited<ReturnType<typeof runSync>>>();
  const { platforms, error } = usePlatforms();
  return (
    <section>
      <PageTitle>Model sync</PageTitle>
      <p className="lead">
        The model catalogues are cached by the service for an hour. Sync refreshes them all now and says what changed; it is recorded in the audit
        log.
      </p>
      <button
        type="button"
        className="primary"
        disabled={sync.pending}
        onClick={async () => {
          const res = await sync.run();
          if (res) setResult(res);
        }}
      >
        {sync.pending ? 'Syncing…' : 'Sync models now'}
      </button>
      {sync.pending ? <Spinner label="Asking the platforms…" /> : null}
      <ErrorText error={sync.error} />
      {result && !sync.pending && !platforms ? <PlatformsPending error={error} /> : null}
      {result && !sync.pending && platforms ? (
        <section aria-live="polite">
          <h2>Synced {dateTime(result.syncedAt)}</h2>
          <TableBox label="Sync report" columns={['Platform', 'Result', 'Models', 'Added', 'Removed', 'Changed']}>
            {platforms.map(({ id: p }) => {
              const r: Report = result.platforms[p];
              return r.status === 'refreshed' ? (
                <tr key={p}>
                  <th scope="row">{p}</th>
                  <td>refreshed</td>
                  <td>{int(r.total)}</td>
                  <td>{int(r.added)}</td>
                  <td>{int(r.removed)}</td>
                  <td>{int(r.changed)}</td>
                </tr>
              ) : (
                <tr key={p}>
                  <th scope="row">{p}</th>
                  <td colSpan={5} className="error">
                    failed: {r.error}
                  </td>
                </tr>
              );
            })}
          </TableBox>
        </section>
      ) : null}
    </section>
  );
}
