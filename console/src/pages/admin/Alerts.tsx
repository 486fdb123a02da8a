import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useAction, useQuery } from '../../api/hooks';
import { Badge, CopyButton, DangerDialog, ErrorText, Field, PageTitle, Spinner, TableBox } from '../../components/ui';
import { dateTime } from '../../format';

type Channel = Schemas['AlertChannel'];
type ChannelType = Channel['type'];

const EMPTY = { name: '', type: 'webhook' as ChannelType, url: '', secret: '', format: 'json' as 'json' | 'slack', topic_arn: '', address: '' };

/** Where a channel sends, in one line. */
const targetOf = (c: Channel) =>
  c.type === 'webhook' ? `${c.url ?? ''}${c.format === 'slack' ? ' (Slack)' : ''}` : (c.topic_arn ?? c.address ?? '');

/**
 * Budget alerts (docs/budgets-and-alerts.md): the channels every alert goes to (signed webhooks, SNS
 * topics, e-mail), and every delivery of an event to a channel, failures first to the eye: a red badge
 * and the receiver's error. A webhook's generated secret is shown once, in the answer to its creation.
 */
export default function Alerts() {
  const channels = useQuery(() => unwrap(api.GET('/api/alerts/channels')), []);
  const deliveries = useQuery(() => unwrap(api.GET('/api/alerts/deliveries', { params: { query: { limit: 50 } } })), []);
  const [form, setForm] = useState(EMPTY);
  const [created, setCreated] = useState<{ name: string; secret?: string }>();
  const [tested, setTested] = useState('');
  const [deleting, setDeleting] = useState<Channel>();
  const set = (field: keyof typeof EMPTY) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });

  const create = useAction(async (e: FormEvent) => {
    e.preventDefault();
    const target =
      form.type === 'webhook'
        ? { url: form.url.trim(), format: form.format, ...(form.secret ? { secret: form.secret } : {}) }
        : form.type === 'sns'
          ? { topic_arn: form.topic_arn.trim() }
          : { address: form.address.trim() };
    const res = await unwrap(api.POST('/api/alerts/channels', { body: { name: form.name.trim(), type: form.type, ...target } }));
    setCreated({ name: res.channel.name, secret: res.channel.secret });
    setForm(EMPTY);
    await channels.reload();
    return true;
  });
  const test = useAction(async (c: Channel) => {
    await unwrap(api.POST('/api/alerts/channels/{channelId}/test', { params: { path: { channelId: c.id } } }));
    setTested(c.name);
    return true;
  });
  const remove = useAction(async (id: string) => {
    await unwrap(api.DELETE('/api/alerts/channels/{channelId}', { params: { path: { channelId: id } } }));
    await channels.reload();
    return true;
  });

  const list = channels.data?.channels ?? [];
  const sent = deliveries.data?.deliveries ?? [];
  const failed = sent.filter((d) => d.status === 'failed').length;
  return (
    <section>
      <PageTitle>Alerts</PageTitle>
      <p className="lead">
        Every budget alerts at its thresholds (80 % and 100 % unless set beside the budget), once a month each, to every channel here.
      </p>

      <form className="panel" onSubmit={(e) => void create.run(e)} aria-labelledby="new-channel">
        <h2 id="new-channel">New channel</h2>
        <div className="row">
          <Field label="Channel name">{(id) => <input id={id} value={form.name} onChange={set('name')} required maxLength={100} />}</Field>
          <Field label="Type">
            {(id) => (
              <select id={id} value={form.type} onChange={set('type')}>
                <option value="webhook">Webhook (signed)</option>
                <option value="sns">SNS topic</option>
                <option value="email">E-mail</option>
              </select>
            )}
          </Field>
        </div>
        {form.type === 'webhook' ? (
          <div className="row">
            <Field label="Webhook URL" hint="https, to a public host.">
              {(id, hint) => <input id={id} aria-describedby={hint} type="url" value={form.url} onChange={set('url')} required />}
            </Field>
            <Field label="Signing secret" hint="16 to 256 characters; empty: one is generated and shown once.">
              {(id, hint) => (
                <input id={id} aria-describedby={hint} type="password" autoComplete="new-password" value={form.secret} onChange={set('secret')} />
              )}
            </Field>
            <Field label="Format">
              {(id) => (
                <select id={id} value={form.format} onChange={set('format')}>
                  <option value="json">JSON event</option>
                  <option value="slack">Slack incoming webhook</option>
                </select>
              )}
            </Field>
          </div>
        ) : form.type === 'sns' ? (
          <Field label="Topic ARN">{(id) => <input id={id} className="mono" value={form.topic_arn} onChange={set('topic_arn')} required />}</Field>
        ) : (
          <Field label="E-mail address">{(id) => <input id={id} type="email" value={form.address} onChange={set('address')} required />}</Field>
        )}
        <button type="submit" className="primary" disabled={create.pending}>
          Create channel
        </button>
        <ErrorText error={create.error} />
      </form>

      {created ? (
        <section className="panel success" aria-labelledby="created-channel" aria-live="polite">
          <h2 id="created-channel">Channel {created.name} created</h2>
          {created.secret ? (
            <>
              <p>Its signing secret, shown only this once: verify each webhook's x-model-ops-signature with it.</p>
              <p>
                <span className="mono" aria-label="The signing secret">
                  {created.secret}
                </span>{' '}
                <CopyButton text={created.secret} />
              </p>
            </>
          ) : null}
          <button type="button" className="small" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </section>
      ) : null}

      <h2>Channels</h2>
      {channels.loading && !channels.data ? <Spinner label="Loading channels…" /> : null}
      <ErrorText error={channels.error} />
      {tested ? (
        <p className="panel" aria-live="polite">
          A test event is on its way to {tested}: it is listed under Deliveries once sent.
        </p>
      ) : null}
      <ErrorText error={test.error} />
      {channels.data ? (
        list.length === 0 ? (
          <p>No channels yet: alerts have nowhere to go.</p>
        ) : (
          <TableBox label="Alert channels" columns={['Name', 'Type', 'Sends to', 'Secret', 'Created', '']}>
            {list.map((c) => (
              <tr key={c.id}>
                <th scope="row">{c.name}</th>
                <td>{c.type}</td>
                <td className="mono">{targetOf(c)}</td>
                <td className="mono">{c.secret_hint ?? '—'}</td>
                <td>{dateTime(c.created_at)}</td>
                <td>
                  <button type="button" className="small" disabled={test.pending} onClick={() => void test.run(c)}>
                    Send test
                  </button>{' '}
                  <button type="button" className="small danger" onClick={() => setDeleting(c)}>
                    Delete…
                  </button>
                </td>
              </tr>
            ))}
          </TableBox>
        )
      ) : null}

      <h2>
        Deliveries{' '}
        <button type="button" className="small" onClick={() => void deliveries.reload()}>
          Refresh
        </button>
      </h2>
      {deliveries.loading && !deliveries.data ? <Spinner label="Loading deliveries…" /> : null}
      <ErrorText error={deliveries.error} />
      {deliveries.data ? (
        sent.length === 0 ? (
          <p>Nothing sent yet.</p>
        ) : (
          <>
            {failed > 0 ? (
              <p className="error" role="alert">
                {failed} deliver{failed === 1 ? 'y' : 'ies'} failed: the receiver's error is beside each. Failed ones are retried from the stream.
              </p>
            ) : null}
            <TableBox label="Alert deliveries" columns={['Event', 'Channel', 'Status', 'Attempts', 'Event at', 'Delivered', 'Error']}>
              {sent.map((d) => (
                <tr key={`${d.event_id}-${d.channel_id}`}>
                  <th scope="row">{d.event}</th>
                  <td>{d.channel_name}</td>
                  <td>
                    <Badge value={d.status} />
                  </td>
                  <td>{d.attempts}</td>
                  <td>{dateTime(d.event_at)}</td>
                  <td>{d.delivered_at ? dateTime(d.delivered_at) : '—'}</td>
                  <td className={d.last_error ? 'error' : undefined}>{d.last_error ?? ''}</td>
                </tr>
              ))}
            </TableBox>
          </>
        )
      ) : null}

      <DangerDialog
        item={deleting}
        title={`Delete ${deleting?.name ?? 'this channel'}?`}
        confirmLabel="Delete"
        pending={remove.pending}
        error={remove.error}
        run={(it) => remove.run(it.id)}
        onClose={() => setDeleting(undefined)}
      >
        <p>Alerts stop going to it at once. Its past deliveries stay listed.</p>
      </DangerDialog>
    </section>
  );
}
