import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, unwrap, type Schemas } from '../api/client';
import { useInterval } from '../api/hooks';
import { Badge, ErrorText, Field, PageTitle, Spinner, TableBox } from '../components/ui';
import { dateTime } from '../format';
import { usePlatforms } from '../api/platforms';

type Resource = Schemas['Resource'];
export const TRANSITIONAL = new Set(['Creating', 'Updating', 'Deleting']);
/** While something is changing, its status is read this often; otherwise the list every 30 s (docs/architecture.md). */
export const FAST_POLL_MS = 3000;
export const SLOW_POLL_MS = 30_000;

export default function Resources() {
  const [type, setType] = useState<'' | Resource['type']>('');
  const { platforms } = usePlatforms();
  const [resources, setResources] = useState<Resource[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [updatedAt, setUpdatedAt] = useState<Date>();
  const generation = useRef(0);

  const load = useCallback(
    async (more?: string) => {
      const mine = more ? generation.current : ++generation.current;
      setLoading(true);
      try {
        const res = await unwrap(
          api.GET('/api/resources', { params: { query: { limit: 50, ...(type ? { type } : {}), ...(more ? { cursor: more } : {}) } } }),
        );
        if (mine !== generation.current) return;
        setResources((prev) => (more ? [...(prev ?? []), ...res.resources] : res.resources));
        setCursor(res.nextCursor);
        setError(undefined);
        setUpdatedAt(new Date());
      } catch (err) {
        if (mine === generation.current) setError(err);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [type],
  );
  useEffect(() => {
    void load();
  }, [load]);

  // The list shows what the service last saw; a resource in motion is read from its platform
  // (GET status) every few seconds so its row moves on by itself.
  const moving = (resources ?? []).filter((r) => TRANSITIONAL.has(r.status));
  useInterval(
    () => {
      for (const r of moving) {
        api.GET('/api/resources/{resourceId}/status', { params: { path: { resourceId: r.id } } }).then(
          ({ data, response }) => {
            if (data) setResources((prev) => prev?.map((x) => (x.id === r.id ? data.resource : x)));
            else if (response.status === 404) setResources((prev) => prev?.filter((x) => x.id !== r.id));
            setUpdatedAt(new Date());
          },
          () => undefined,
        );
      }
    },
    FAST_POLL_MS,
    moving.length > 0,
  );
  useInterval(() => void load(), SLOW_POLL_MS, !cursor);

  return (
    <section>
      <PageTitle
        actions={
          <button type="button" className="small" onClick={() => void load()} disabled={loading}>
            Refresh
          </button>
        }
      >
        Resources
      </PageTitle>
      <div className="toolbar">
        <Field label="Platform">
          {(id) => (
            <select id={id} value={type} onChange={(e) => setType(e.target.value as typeof type)}>
              <option value="">All platforms</option>
              {platforms?.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <p className="hint" aria-live="polite">
          {updatedAt ? `Updated ${updatedAt.toLocaleTimeString('en-GB')}` : ''}
          {moving.length ? ` · following ${moving.length} changing resource${moving.length > 1 ? 's' : ''}` : ''}
        </p>
      </div>
      {loading && !resources ? <Spinner label="Loading resources…" /> : null}
      <ErrorText error={error} />
      {resources && resources.length === 0 ? (
        <p>
          No resources yet. <Link href="/deploy">Deploy one</Link> (admins) or ask an admin to.
        </p>
      ) : null}
      {resources && resources.length > 0 ? (
        <TableBox label="Resources" columns={['Name', 'Platform', 'Model', 'Status', 'Health', 'Created']}>
          {resources.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                <Link href={`/resources/${r.id}`}>{r.name}</Link>
              </th>
              <td>{r.type}</td>
              <td className="mono small">{r.model_name}</td>
              <td>
                <Badge value={r.status} />
                {TRANSITIONAL.has(r.status) ? <span className="spinner-wheel inline" aria-hidden="true" /> : null}
              </td>
              <td>
                <Badge value={r.health} />
              </td>
              <td>{dateTime(r.created_at)}</td>
            </tr>
          ))}
        </TableBox>
      ) : null}
      {cursor ? (
        <button type="button" onClick={() => void load(cursor)} disabled={loading}>
          {loading ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </section>
  );
}
