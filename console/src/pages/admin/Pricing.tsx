import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { useAction, useQuery } from '../../api/hooks';
import { ErrorText, Field, PageTitle, Spinner, TableBox } from '../../components/ui';
import { dateTime, usd } from '../../format';
import { PLATFORMS, type Platform } from '../Models';

export default function Pricing() {
  const q = useQuery(() => unwrap(api.GET('/api/pricing')), []);
  const refresh = useAction(() => unwrap(api.POST('/api/pricing/update', { body: {} })));
  const [report, setReport] = useState<string>();
  return (
    <section>
      <PageTitle
        actions={
          <button
            type="button"
            disabled={refresh.pending}
            onClick={async () => {
              const res = await refresh.run();
              if (res) {
                setReport(
                  `${res.message} ${res.summary.changed} changed, ${res.summary.unchanged} unchanged, ${res.summary.kept_admin_overrides} admin prices kept.`,
                );
                void q.reload();
              }
            }}
          >
            {refresh.pending ? 'Refreshing…' : 'Refresh from the price list'}
          </button>
        }
      >
        Pricing
      </PageTitle>
      <ErrorText error={refresh.error} />
      {report ? (
        <p className="success" role="status">
          {report}
        </p>
      ) : null}
      {q.loading && !q.data ? <Spinner label="Loading the price table…" /> : null}
      <ErrorText error={q.error} />
      {q.data ? (
        <>
          <p className="hint">
            Prices in {q.data.currency}; source {q.data.source} ({q.data.sources.default} default, {q.data.sources.admin} set by an admin,{' '}
            {q.data.sources['aws-price-list']} from the price list); updated {dateTime(q.data.last_updated)}. A model without a price is charged{' '}
            {usd(q.data.fallback.per_1k_input_tokens_usd)} / {usd(q.data.fallback.per_1k_output_tokens_usd)} per 1K tokens ({q.data.fallback.note}).
          </p>
          <SetPrice onSaved={() => void q.reload()} />
          <h2>Per token (managed and hosted)</h2>
          <TableBox label="Token prices" columns={['Platform', 'Model', 'Input per 1K', 'Output per 1K', 'Source']}>
            {(['managed', 'hosted'] as const).flatMap((platform) =>
              (q.data?.pricing[platform] ?? []).map((p) => (
                <tr key={`${platform}-${p.modelId}`}>
                  <td>{platform}</td>
                  <th scope="row" className="mono small">
                    {p.modelId}
                  </th>
                  <td>{usd(p.per_1k_input_tokens_usd)}</td>
                  <td>{usd(p.per_1k_output_tokens_usd)}</td>
                  <td>{p.source}</td>
                </tr>
              )),
            )}
          </TableBox>
          <h2>Per hour (dedicated instances)</h2>
          <TableBox label="Instance prices" columns={['Instance type', 'Hourly', 'Daily', 'Monthly estimate', 'Source']}>
            {q.data.pricing.dedicated.map((p) => (
              <tr key={p.instanceType}>
                <th scope="row" className="mono small">
                  {p.instanceType}
                </th>
                <td>{usd(p.hourly_usd)}</td>
                <td>{usd(p.daily_usd)}</td>
                <td>{usd(p.monthly_estimate_usd)}</td>
                <td>{p.source}</td>
              </tr>
            ))}
          </TableBox>
        </>
      ) : null}
    </section>
  );
}

function SetPrice({ onSaved }: { onSaved: () => void }) {
  const [platform, setPlatform] = useState<Platform>('managed');
  // A platform billed by the hour is priced per instance type; the others per 1K tokens of a model.
  const perHour = PLATFORMS.find((p) => p.id === platform)?.billing === 'per_hour';
  const [key, setKey] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const [hourly, setHourly] = useState('');
  const [saved, setSaved] = useState<string>();
  const save = useAction(() =>
    unwrap(
      api.POST('/api/pricing', {
        body: {
          entries: [
            perHour
              ? { platform: platform as 'dedicated', instanceType: key.trim(), hourly_usd: Number(hourly) }
              : {
                  platform: platform as 'managed' | 'hosted',
                  modelId: key.trim(),
                  per_1k_input_tokens_usd: Number(input),
                  per_1k_output_tokens_usd: Number(output),
                },
          ],
        },
      }),
    ),
  );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(undefined);
    const res = await save.run();
    if (res) {
      setSaved(res.message);
      onSaved();
    }
  };
  return (
    <details className="panel">
      <summary>Set a price</summary>
      <form className="form" onSubmit={submit}>
        <div className="row">
          <Field label="Platform">
            {(id) => (
              <select id={id} value={platform} onChange={(e) => setPlatform(e.target.value as typeof platform)}>
                {PLATFORMS.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.id}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={perHour ? 'Instance type' : 'Model id'}>
            {(id) => <input id={id} value={key} onChange={(e) => setKey(e.target.value)} required />}
          </Field>
        </div>
        {perHour ? (
          <Field label="USD per hour">
            {(id) => <input id={id} type="number" min={0} step="any" value={hourly} onChange={(e) => setHourly(e.target.value)} required />}
          </Field>
        ) : (
          <div className="row">
            <Field label="USD per 1K input tokens">
              {(id) => <input id={id} type="number" min={0} step="any" value={input} onChange={(e) => setInput(e.target.value)} required />}
            </Field>
            <Field label="USD per 1K output tokens">
              {(id) => <input id={id} type="number" min={0} step="any" value={output} onChange={(e) => setOutput(e.target.value)} required />}
            </Field>
          </div>
        )}
        <ErrorText error={save.error} />
        {saved ? (
          <p className="success" role="status">
            {saved}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={save.pending}>
          {save.pending ? 'Saving…' : 'Save price'}
        </button>
      </form>
    </details>
  );
}
