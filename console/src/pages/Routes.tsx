import { useState, type FormEvent, type ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useInterval, useQuery } from '../api/hooks';
import { getSession, isAdmin } from '../api/session';
import { Badge, DangerDialog, ErrorText, Field, PageTitle, Spinner, TableBox } from '../components/ui';

type Route = Schemas['Route'];
type RouteFailure = Schemas['RouteFailure'];
type Resource = Schemas['Resource'];

/** How often the routes are read again while the page is open: cooldowns are set by calls anywhere. */
const REFRESH_MS = 5000;
const FAILURES: RouteFailure[] = ['throttled', 'unavailable', 'timeout', 'not_in_service', 'context_window'];

/**
 * Routes: one `model` name on /v1 for several resources, tried in order or by weight, falling over on
 * the failures `retry_on` lists (docs/routes.md). Admins create, edit (targets ordered up and down)
 * and delete them; users see the routes they may call. Each target shows its live cooldown, counted
 * down every second and read again every few seconds, since any function instance may set one.
 */
export default function Routes() {
  const admin = isAdmin(getSession()?.user.role);
  const routes = useQuery(() => unwrap(api.GET('/api/routes', { params: { query: { limit: 100 } } })), []);
  const [now, setNow] = useState(Date.now());
  useInterval(() => setNow(Date.now()), 1000);
  useInterval(() => void routes.reload(), REFRESH_MS, !routes.error);
  const [editing, setEditing] = useState<Route | 'new'>();
  const [deleting, setDeleting] = useState<Route>();
  const remove = useAction(async (id: string) => {
    await unwrap(api.DELETE('/api/routes/{routeId}', { params: { path: { routeId: id } } }));
    await routes.reload();
    return true;
  });
  const list = routes.data?.routes ?? [];
  return (
    <section>
      <PageTitle
        actions={
          admin && editing === undefined ? (
            <button type="button" onClick={() => setEditing('new')}>
              New route
            </button>
          ) : undefined
        }
      >
        Routes
      </PageTitle>
      <p className="lead">
        A route is a model name on /v1 for several resources. It falls over to the next target before the first byte, and a target that failed cools
        down for every caller.
      </p>
      {editing !== undefined ? (
        <RouteEditor
          route={editing === 'new' ? undefined : editing}
          onDone={async () => {
            setEditing(undefined);
            await routes.reload();
          }}
        />
      ) : null}
      {routes.loading && !routes.data ? <Spinner label="Loading routes…" /> : null}
      <ErrorText error={routes.error} />
      {routes.data && list.length === 0 ? <p>{admin ? 'No route yet.' : 'No route you may call.'}</p> : null}
      {list.map((route) => (
        <RouteView
          key={route.id}
          route={route}
          now={now}
          actions={
            admin ? (
              <>
                <button type="button" className="small" onClick={() => setEditing(route)}>
                  Edit
                </button>{' '}
                <button type="button" className="small danger" onClick={() => setDeleting(route)}>
                  Delete…
                </button>
              </>
            ) : null
          }
        />
      ))}
      <DangerDialog
        item={deleting}
        title={`Delete route ${deleting?.name ?? ''}?`}
        confirmLabel="Delete"
        pending={remove.pending}
        error={remove.error}
        run={(it) => remove.run(it.id)}
        onClose={() => setDeleting(undefined)}
      >
        <p>Callers naming it get 404 model_not_found. Its resources are untouched.</p>
      </DangerDialog>
    </section>
  );
}

/** What is left of a cooldown, in words; '' when the target is not cooling down. */
function cooldownText(target: Route['targets'][number], now: number): string {
  const until = target.cooldown_until ? Date.parse(target.cooldown_until) : 0;
  if (until <= now) return '';
  return `cooling down (${target.cooldown_reason ?? 'failed'}), ${Math.ceil((until - now) / 1000)} s left`;
}

function RouteView({ route, now, actions }: { route: Route; now: number; actions: ReactNode }) {
  return (
    <section className="panel" aria-label={`Route ${route.name}`}>
      <h2 className="mono">{route.name}</h2>
      <p>
        {route.strategy === 'priority' ? 'Priority' : 'Weighted'} · {route.kind ?? 'no target left'} · cooldown {route.cooldown_seconds} s · falls
        over on {route.retry_on.join(', ') || 'nothing'} {actions}
      </p>
      <TableBox label={`Targets of ${route.name}`} columns={['#', 'Resource', 'Platform', 'Status', 'Weight', 'Cooldown']}>
        {route.targets.map((t, i) => (
          <tr key={t.resource_id}>
            <td>{i + 1}</td>
            <th scope="row" className="mono">
              {t.endpoint_name}
            </th>
            <td>{t.type}</td>
            <td>{t.gone ? <Badge value="gone" /> : <Badge value={t.status} />}</td>
            <td>{t.weight}</td>
            <td>{cooldownText(t, now) || '—'}</td>
          </tr>
        ))}
      </TableBox>
    </section>
  );
}

interface DraftTarget {
  resource_id: string;
  weight: number;
}

/** Creates a route, or edits one: its name, strategy, targets in order with weights, cooldown and failures that fall over. */
function RouteEditor({ route, onDone }: { route?: Route; onDone: () => Promise<void> }) {
  const resources = useQuery(() => unwrap(api.GET('/api/resources', { params: { query: { limit: 100 } } })), []);
  const [name, setName] = useState(route?.name ?? '');
  const [strategy, setStrategy] = useState<Route['strategy']>(route?.strategy ?? 'priority');
  const [targets, setTargets] = useState<DraftTarget[]>(route?.targets.map((t) => ({ resource_id: t.resource_id, weight: t.weight })) ?? []);
  const [cooldown, setCooldown] = useState(String(route?.cooldown_seconds ?? 30));
  const [retryOn, setRetryOn] = useState<RouteFailure[]>(route?.retry_on ?? FAILURES);
  const [adding, setAdding] = useState('');
  const save = useAction(async () => {
    const body = { name, strategy, targets, cooldown_seconds: Number(cooldown), retry_on: retryOn };
    if (route) await unwrap(api.PATCH('/api/routes/{routeId}', { params: { path: { routeId: route.id } }, body }));
    else await unwrap(api.POST('/api/routes', { body }));
    await onDone();
  });
  const known = new Map<string, Resource>((resources.data?.resources ?? []).map((r) => [r.id, r]));
  const label = (id: string) => known.get(id)?.name ?? route?.targets.find((t) => t.resource_id === id)?.endpoint_name ?? id;
  const move = (i: number, by: number) =>
    setTargets((ts) => {
      const next = [...ts];
      const [moved] = next.splice(i, 1);
      if (moved) next.splice(i + by, 0, moved);
      return next;
    });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form className="panel" aria-label={route ? `Edit route ${route.name}` : 'New route'} onSubmit={submit}>
      <h2>{route ? `Edit ${route.name}` : 'New route'}</h2>
      <Field label="Name" hint="Sent as model on /v1: letters, digits, '.', '_' or '-'.">
        {(id, hint) => <input id={id} aria-describedby={hint} value={name} required maxLength={63} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Strategy">
        {(id) => (
          <select id={id} value={strategy} onChange={(e) => setStrategy(e.target.value as Route['strategy'])}>
            <option value="priority">priority: the first target not cooling down</option>
            <option value="weighted">weighted: by weight, among those not cooling down</option>
          </select>
        )}
      </Field>
      <TableBox label="Targets" columns={['#', 'Resource', 'Weight', '']}>
        {targets.map((t, i) => (
          <tr key={t.resource_id}>
            <td>{i + 1}</td>
            <th scope="row" className="mono">
              {label(t.resource_id)}
            </th>
            <td>
              <input
                type="number"
                min={1}
                max={1000}
                aria-label={`Weight of ${label(t.resource_id)}`}
                value={t.weight}
                onChange={(e) => setTargets((ts) => ts.map((x, j) => (j === i ? { ...x, weight: Number(e.target.value) } : x)))}
              />
            </td>
            <td>
              <button type="button" className="small" disabled={i === 0} aria-label={`Move ${label(t.resource_id)} up`} onClick={() => move(i, -1)}>
                Up
              </button>{' '}
              <button
                type="button"
                className="small"
                disabled={i === targets.length - 1}
                aria-label={`Move ${label(t.resource_id)} down`}
                onClick={() => move(i, 1)}
              >
                Down
              </button>{' '}
              <button
                type="button"
                className="small danger"
                aria-label={`Remove ${label(t.resource_id)}`}
                onClick={() => setTargets((ts) => ts.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </TableBox>
      <Field label="Add a target">
        {(id) => (
          <select
            id={id}
            value={adding}
            onChange={(e) => {
              const picked = e.target.value;
              setAdding('');
              if (picked && !targets.some((t) => t.resource_id === picked)) setTargets((ts) => [...ts, { resource_id: picked, weight: 1 }]);
            }}
          >
            <option value="">{resources.data ? 'Choose a resource' : 'Loading resources…'}</option>
            {(resources.data?.resources ?? [])
              .filter((r) => !targets.some((t) => t.resource_id === r.id))
              .map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name} ({r.type}, {r.status})
                </option>
              ))}
          </select>
        )}
      </Field>
      <ErrorText error={resources.error} />
      <Field label="Cooldown (seconds)" hint="How long a failed target is skipped by every caller: 1 to 3600.">
        {(id, hint) => (
          <input id={id} aria-describedby={hint} type="number" min={1} max={3600} value={cooldown} onChange={(e) => setCooldown(e.target.value)} />
        )}
      </Field>
      <fieldset>
        <legend>Falls over on</legend>
        {FAILURES.map((f) => (
          <label key={f} className="check">
            <input
              type="checkbox"
              checked={retryOn.includes(f)}
              onChange={(e) => setRetryOn((r) => (e.target.checked ? [...r, f] : r.filter((x) => x !== f)))}
            />{' '}
            {f}
          </label>
        ))}
      </fieldset>
      <ErrorText error={save.error} />
      <button type="submit" disabled={save.pending}>
        {route ? 'Save route' : 'Create route'}
      </button>{' '}
      <button type="button" className="secondary" onClick={() => void onDone()}>
        Cancel
      </button>
    </form>
  );
}
