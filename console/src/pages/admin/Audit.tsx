import { api, unwrap } from '../../api/client';
import { usePaged } from '../../api/hooks';
import { ErrorText, PageTitle, Spinner, TableBox } from '../../components/ui';
import { dateTime } from '../../format';

export default function Audit() {
  const list = usePaged(async (cursor?: string) => {
    const res = await unwrap(api.GET('/api/admin/audit', { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } }));
    return { items: res.entries, nextCursor: res.nextCursor };
  });
  return (
    <section>
      <PageTitle
        actions={
          <button type="button" className="small" onClick={() => void list.first.reload()} disabled={list.first.loading}>
            Refresh
          </button>
        }
      >
        Audit log
      </PageTitle>
      {list.first.loading && !list.first.data ? <Spinner label="Loading the audit log…" /> : null}
      <ErrorText error={list.first.error} />
      {list.items.length ? (
        <TableBox label="Audit log" columns={['When', 'Who', 'Action', 'Target', 'Outcome']}>
          {list.items.map((e) => (
            <tr key={e.id}>
              <td>{dateTime(e.at)}</td>
              <td>
                {e.actor.username} <span className="hint">({e.actor.role})</span>
              </td>
              <th scope="row">{e.action}</th>
              <td className="mono small">{e.target ?? '—'}</td>
              <td>
                {e.outcome} ({e.status}){e.detail ? <span className="hint"> {e.detail}</span> : null}
              </td>
            </tr>
          ))}
        </TableBox>
      ) : list.first.data ? (
        <p>No admin actions recorded yet.</p>
      ) : null}
      {list.hasMore ? (
        <button type="button" onClick={() => void list.more.run()} disabled={list.more.pending}>
          {list.more.pending ? 'Loading…' : 'Load older entries'}
        </button>
      ) : null}
      <ErrorText error={list.more.error} />
    </section>
  );
}
