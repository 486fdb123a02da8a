import { useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError, api, unwrap, type Schemas } from '../api/client';
import { useAction, useInterval, useQuery } from '../api/hooks';
import { GuardrailFields } from '../components/GuardrailFields';
import { AlertThresholdsField, thresholdsOf, thresholdsText } from '../components/AlertThresholdsField';
import { Badge, ConfirmDialog, ErrorText, Facts, PageTitle, Spinner } from '../components/ui';
import { dateTime, ms, percent, usd } from '../format';
import { FAST_POLL_MS, SLOW_POLL_MS, TRANSITIONAL } from './Resources';

type Status = Schemas['ResourceStatusResponse'];
type Action = 'start' | 'restart' | 'delete';
/** A resource the platform runs is removed from tracking at once; an endpoint is deleted over minutes (Deleting, then 404). */
const removedAtOnce = (r?: Status['resource']) => r?.lifecycle === 'access';

export default function ResourceDetail() {
  const { id } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const [gone, setGone] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [lastControl, setLastControl] = useState<string>();
  const seen = useRef(false);
  const q = useQuery(async () => {
    try {
      const res = await unwrap(api.GET('/api/resources/{resourceId}/status', { params: { path: { resourceId: id } } }));
      seen.current = true;
      return res;
    } catch (err) {
      // After a delete, the status answers 404 once the platform has finished: the end of the story.
      if (err instanceof ApiError && err.status === 404 && seen.current) setGone(true);
      throw err;
    }
  }, [id]);
  const status = q.data?.resource.status;
  const moving = status !== undefined && TRANSITIONAL.has(status);
  useInterval(() => void q.reload(), moving ? FAST_POLL_MS : SLOW_POLL_MS, !gone && !q.error);

  const control = useAction(async (action: Action) => {
    const res = await unwrap(
      api.POST('/api/resources/{resourceId}/control', {
        params: { path: { resourceId: id } },
        body: action === 'delete' ? { action, confirm: true } : { action },
      }),
    );
    setLastControl(action);
    if (res.action === 'delete' && removedAtOnce(q.data?.resource)) setGone(true);
    else await q.reload();
    return res;
  });
  const actions = q.data?.resource.actions ?? [];

  if (gone) {
    return (
      <section>
        <PageTitle>Resource deleted</PageTitle>
        <p role="status">{q.data?.resource.name ?? 'The resource'} has been deleted and is no longer tracked.</p>
        <Link href="/resources">Back to Resources</Link>
      </section>
    );
  }
  const data = q.data;
  return (
    <section>
      <PageTitle>{data?.resource.name ?? 'Resource'}</PageTitle>
      <p>
        <Link href="/resources">← All resources</Link>
      </p>
      {q.loading && !data ? <Spinner label="Reading the resource's status…" /> : null}
      <ErrorText error={q.error} />
      {data ? (
        <>
          <div className="status-line" aria-live="polite">
            <Badge value={data.resource.status} /> <Badge value={data.resource.health} />
            {moving ? <Spinner label={`${data.resource.status}… checking every ${FAST_POLL_MS / 1000} s`} /> : null}
          </div>
          {data.failure_reason ? <p className="error">{data.failure_reason}</p> : null}
          {data.warnings?.length ? (
            <ul className="warnings">
              {data.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          ) : null}
          {actions.some((a) => a === 'start' || a === 'restart' || a === 'delete') ? (
            <Controls data={data} pending={control.pending} onAction={(a) => (a === 'delete' ? setConfirming(true) : void control.run(a))} />
          ) : null}
          <ErrorText error={control.error} />
          {lastControl && control.pending === false && !control.error ? (
            <p className="hint">The {lastControl} was accepted; the status follows it.</p>
          ) : null}
          <div className="grid">
            <section className="panel">
              <h2>Resource</h2>
              <Facts
                items={[
                  ['Platform', data.resource.type],
                  ['Billing', data.resource.billing === 'per_hour' ? 'per instance-hour, until deleted' : 'per token'],
                  ['Can do', abilities(data.resource.capabilities)],
                  ['Model', data.resource.model_name],
                  ['Region', data.resource.region],
                  ['Instances', data.resource.instance_type ? `${data.resource.instance_count} × ${data.resource.instance_type}` : '—'],
                  ['Endpoint', <span className="mono small">{data.resource.endpoint_url}</span>],
                  ['Created', dateTime(data.resource.created_at)],
                  ['Last updated', dateTime(data.resource.last_updated)],
                ]}
              />
            </section>
            <Metrics metrics={data.metrics} />
            <Costs costs={data.costs} />
            {data.guardrails ? (
              <Guardrails id={id} guardrails={data.guardrails} admin={actions.includes('update_guardrails')} onSaved={() => void q.reload()} />
            ) : null}
            {data.access ? <Access id={id} access={data.access} onSaved={() => void q.reload()} /> : null}
          </div>
        </>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title={`Delete ${data?.resource.name ?? 'this resource'}?`}
        confirmLabel="Delete"
        danger
        pending={control.pending}
        error={control.error}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          const res = await control.run('delete');
          if (res) setConfirming(false);
          if (res && removedAtOnce(data?.resource)) navigate('/resources');
        }}
      >
        <p>
          {removedAtOnce(data?.resource)
            ? 'The resource is removed from tracking; nothing is deleted on the platform.'
            : 'The endpoint, its configuration and its model are deleted on the platform; this takes several minutes and cannot be undone.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** What the model does, in words (the service refuses the rest without calling the platform). */
function abilities(c: Status['resource']['capabilities']): string {
  const words: [boolean, string][] = [
    [c.chat, 'chat'],
    [c.streaming, 'streaming'],
    [c.tools, 'tools'],
    [c.json_output, 'JSON output'],
    [c.image_input, 'image input'],
    [c.embeddings, 'embeddings'],
    [c.prompt_caching, `prompt caching (${c.cache_ttls.join(', ')})`],
    [c.service_tiers.length > 1, `tiers ${c.service_tiers.join(', ')}`],
  ];
  return (
    words
      .filter(([on]) => on)
      .map(([, word]) => word)
      .join(', ') || '—'
  );
}

/** The control buttons the service says this caller may use now (the resource's `actions`). */
function Controls({ data, pending, onAction }: { data: Status; pending: boolean; onAction: (a: Action) => void }) {
  const { status, actions } = data.resource;
  const busy = pending || TRANSITIONAL.has(status);
  return (
    <div className="buttons" role="group" aria-label="Actions">
      {actions.includes('restart') ? (
        <button type="button" onClick={() => onAction('restart')} disabled={busy}>
          Restart
        </button>
      ) : null}
      {actions.includes('start') ? (
        <button type="button" onClick={() => onAction('start')} disabled={busy}>
          Start
        </button>
      ) : null}
      {actions.includes('delete') ? (
        <button type="button" className="danger" onClick={() => onAction('delete')} disabled={busy}>
          Delete…
        </button>
      ) : null}
    </div>
  );
}

function Metrics({ metrics }: { metrics: Status['metrics'] }) {
  const m = metrics as Partial<
    Record<'response_time_ms' | 'throughput_per_minute' | 'error_rate_percent' | 'cpu_utilization' | 'memory_utilization', number>
  >;
  const items: [string, string][] = [['Response time', ms(m.response_time_ms)]];
  if (m.throughput_per_minute !== undefined) {
    items.push(
      ['Throughput', `${m.throughput_per_minute.toFixed(1)} / min`],
      ['Error rate', percent(m.error_rate_percent)],
      ['CPU', percent(m.cpu_utilization)],
      ['Memory', percent(m.memory_utilization)],
    );
  }
  return (
    <section className="panel">
      <h2>Metrics</h2>
      <Facts items={items} />
    </section>
  );
}

/** A dedicated endpoint's idle timeout and monthly budget: where it stands, and (admins) a form to change them. */
function Guardrails(props: { id: string; guardrails: NonNullable<Status['guardrails']>; admin: boolean; onSaved: () => void }) {
  const g = props.guardrails;
  const [idle, setIdle] = useState(g.idle_timeout_minutes === null ? '' : String(g.idle_timeout_minutes));
  const [budget, setBudget] = useState(g.monthly_budget_usd === null ? '' : String(g.monthly_budget_usd));
  const [alertAt, setAlertAt] = useState(thresholdsText(g.alert_thresholds));
  const save = useAction(async (e: FormEvent) => {
    e.preventDefault();
    await unwrap(
      api.PATCH('/api/resources/{resourceId}', {
        params: { path: { resourceId: props.id } },
        body: {
          idleTimeoutMinutes: idle.trim() ? Number(idle) : null,
          monthlyBudgetUsd: budget.trim() ? Number(budget) : null,
          alert_thresholds: thresholdsOf(alertAt),
        },
      }),
    );
    props.onSaved();
    return true;
  });
  return (
    <section className="panel" aria-labelledby="guardrails-heading">
      <h2 id="guardrails-heading">Guardrails</h2>
      {g.stopped ? (
        <p className="error" role="status">
          Stopped by its {g.stopped.reason === 'idle' ? 'idle timeout' : 'monthly budget'} at {dateTime(g.stopped.at)}: {g.stopped.detail} Start
          brings it back.
        </p>
      ) : null}
      <Facts
        items={[
          ['Idle timeout', g.idle_timeout_minutes === null ? 'none' : `${g.idle_timeout_minutes} min without invocations`],
          ['Monthly budget', g.monthly_budget_usd === null ? 'none' : usd(g.monthly_budget_usd)],
          ['Alerts at', `${thresholdsText(g.alert_thresholds)} % of the budget`],
          ['Cost this month', usd(g.month_to_date_usd)],
          ['Budget left', g.budget_remaining_usd === null ? '—' : usd(g.budget_remaining_usd)],
          ['Billing now', g.billing ? 'yes' : 'no'],
          ['Last call', dateTime(g.last_chat_at)],
          ['Counts as activity', 'chat, /v1 gateway calls and direct invocations'],
          ['Idle stop not before', dateTime(g.idle_stop_not_before)],
        ]}
      />
      {props.admin ? (
        <form onSubmit={(e) => void save.run(e)} className="inline-form">
          <GuardrailFields idle={idle} onIdle={setIdle} budget={budget} onBudget={setBudget} />
          <AlertThresholdsField value={alertAt} onChange={setAlertAt} />
          <button type="submit" disabled={save.pending}>
            Save guardrails
          </button>
          <ErrorText error={save.error} />
        </form>
      ) : null}
    </section>
  );
}

function Costs({ costs }: { costs: Status['costs'] }) {
  const items: [string, string][] =
    costs.pricing_model === 'token'
      ? [
          ['Pricing', 'per token'],
          ['Input', `${usd(costs.per_1k_input_tokens_usd)} per 1K tokens`],
          ['Output', `${usd(costs.per_1k_output_tokens_usd)} per 1K tokens`],
        ]
      : [
          ['Pricing', 'per hour, until deleted'],
          ['Hourly', usd(costs.hourly_cost)],
          ['Daily', usd(costs.daily_cost)],
          ['Monthly estimate', usd(costs.monthly_estimate)],
        ];
  return (
    <section className="panel">
      <h2>Cost</h2>
      <Facts items={[...items, ['As of', dateTime(costs.last_updated)]]} />
    </section>
  );
}

/** Who besides admins may use the resource (admins only: the status carries it for them). */
function Access(props: { id: string; access: NonNullable<Status['access']>; onSaved: () => void }) {
  const a = props.access;
  const [everyone, setEveryone] = useState(a.everyone);
  const [userIds, setUserIds] = useState<string[]>(a.user_ids);
  const [teamIds, setTeamIds] = useState<string[]>(a.team_ids);
  const users = useQuery(() => unwrap(api.GET('/api/admin/users', { params: { query: { limit: 100 } } })), []);
  const teams = useQuery(() => unwrap(api.GET('/api/teams', { params: { query: { limit: 100 } } })), []);
  const save = useAction(async (e: FormEvent) => {
    e.preventDefault();
    await unwrap(
      api.PUT('/api/resources/{resourceId}/access', {
        params: { path: { resourceId: props.id } },
        body: { everyone, user_ids: everyone ? [] : userIds, team_ids: everyone ? [] : teamIds },
      }),
    );
    props.onSaved();
    return true;
  });
  const who = a.everyone
    ? 'Every user'
    : ['Admins', ...a.users.map((u) => u.username ?? `${u.id} (deleted)`), ...a.teams.map((t) => `team ${t.name ?? `${t.id} (deleted)`}`)].join(', ');
  // Granted users and teams stay listed even when they are not on the first page of all of them.
  // Only a super_admin may list users: an admin adds a user by id instead.
  const [added, setAdded] = useState<string[]>([]);
  const [newId, setNewId] = useState('');
  const userOptions = [
    ...(users.data?.users ?? []).filter((u) => u.role === 'user').map((u) => ({ id: u.id, label: u.username })),
    ...a.users.filter((g) => !users.data?.users.some((u) => u.id === g.id)).map((g) => ({ id: g.id, label: g.username ?? g.id })),
    ...added.filter((id) => !a.user_ids.includes(id)).map((id) => ({ id, label: id })),
  ];
  const teamOptions = [
    ...(teams.data?.teams ?? []).map((t) => ({ id: t.id, label: t.name })),
    ...a.teams.filter((g) => !teams.data?.teams.some((t) => t.id === g.id)).map((g) => ({ id: g.id, label: g.name ?? g.id })),
  ];
  return (
    <section className="panel" aria-labelledby="access-heading">
      <h2 id="access-heading">Who may use it</h2>
      <Facts
        items={[
          ['May use it', who],
          ['Set', a.default ? 'never: the platform default' : `${dateTime(a.updated_at)} by ${a.updated_by ?? ''}`],
        ]}
      />
      <p className="hint">Admins may always use every resource. Others are refused (chat: 403; /v1: model not found) until granted here.</p>
      <form onSubmit={(e) => void save.run(e)}>
        <label className="check">
          <input type="checkbox" checked={everyone} onChange={(e) => setEveryone(e.target.checked)} /> Every user
        </label>
        {everyone ? null : (
          <div className="row">
            <div>
              <CheckList legend="Users" options={userOptions} chosen={userIds} onChange={setUserIds} empty="No users yet" />
              {users.error ? (
                <div className="inline-form">
                  <input aria-label="User id to add" placeholder="user id" value={newId} onChange={(e) => setNewId(e.target.value.trim())} />
                  <button
                    type="button"
                    disabled={!newId}
                    onClick={() => {
                      setAdded([...added, newId]);
                      setUserIds([...userIds, newId]);
                      setNewId('');
                    }}
                  >
                    Add user
                  </button>
                </div>
              ) : null}
            </div>
            <CheckList legend="Teams" options={teamOptions} chosen={teamIds} onChange={setTeamIds} empty="No teams yet" />
          </div>
        )}
        <button type="submit" disabled={save.pending}>
          Save access
        </button>
        <ErrorText error={save.error} />
      </form>
    </section>
  );
}

/** A group of checkboxes choosing ids. */
function CheckList(props: {
  legend: string;
  options: { id: string; label: string }[];
  chosen: string[];
  onChange: (ids: string[]) => void;
  empty: string;
}) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.length === 0 ? <span className="hint">{props.empty}</span> : null}
      {props.options.map((o) => (
        <label key={o.id} className="check">
          <input
            type="checkbox"
            checked={props.chosen.includes(o.id)}
            onChange={(e) => props.onChange(e.target.checked ? [...props.chosen, o.id] : props.chosen.filter((x) => x !== o.id))}
          />{' '}
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}
