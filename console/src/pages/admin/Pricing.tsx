import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useAction, useQuery } from '../../api/hooks';
import { ErrorText, Field, PageTitle, Spinner, TableBox, UsdField } from '../../components/ui';
import { dateTime, usd } from '../../format';
import { usePlatforms, type PlatformDescription } from '../../api/platforms';
import { PlatformsPending } from '../../components/Platforms';

type TokenPrice = Schemas['TokenPrice'];
type InstancePrice = Schemas['InstancePrice'];
/** A platform's prices are per model or per instance type, as its billing says; the shape tells them apart too. */
const isTokenPrice = (p: TokenPrice | InstancePrice): p is TokenPrice => 'modelId' in p;
const isInstancePrice = (p: TokenPrice | InstancePrice): p is InstancePrice => 'instanceType' in p;
/** Platforms named in a heading: "managed and hosted". */
const named = (platforms: PlatformDescription[]) => platforms.map((p) => p.id).join(' and ');

export default function Pricing() {
  const q = useQuery(() => unwrap(api.GET('/api/pricing')), []);
  const { platforms, error } = usePlatforms();
  const perToken = platforms?.filter((p) => p.billing === 'per_token') ?? [];
  const perHour = platforms?.filter((p) => p.billing === 'per_hour') ?? [];
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
      {platforms ? null : <PlatformsPending error={error} />}
      {q.data && platforms ? (
        <>
          <p className="hint">
            Prices in {q.data.currency}; source {q.data.source} ({q.data.sources.default} default, {q.data.sources.admin} set by an admin,{' '}
            {q.data.sources['aws-price-list']} from the price list); updated {dateTime(q.data.last_updated)}. A model without a price is charged{' '}
            {usd(q.data.fallback.per_1k_input_tokens_usd)} / {usd(q.data.fallback.per_1k_output_tokens_usd)} per 1K tokens ({q.data.fallback.note}).
          </p>
          <SetPrice platforms={platforms} onSaved={() => void q.reload()} />
          <h2>Per token ({named(perToken)})</h2>
          <TableBox
            label="Token prices"
            columns={[
              'Platform',
              'Model',
              'Input per 1K',
              'Output per 1K',
              'Cache per 1K (read / 5 min write / 1 h write)',
              'Flex and Priority per 1K',
              'Source',
            ]}
          >
            {perToken.flatMap(({ id: platform }) =>
              (q.data?.pricing[platform] ?? []).filter(isTokenPrice).map((p) => (
                <tr key={`${platform}-${p.modelId}`}>
                  <td>{platform}</td>
                  <th scope="row" className="mono small">
                    {p.modelId}
                  </th>
                  <td>{usd(p.per_1k_input_tokens_usd)}</td>
                  <td>{usd(p.per_1k_output_tokens_usd)}</td>
                  <td>{cachePrices(p)}</td>
                  <td>{'service_tiers' in p ? tierPrices(p.service_tiers) : '—'}</td>
                  <td>{p.source}</td>
                </tr>
              )),
            )}
          </TableBox>
          <h2>Per hour ({named(perHour)} instances)</h2>
          <TableBox label="Instance prices" columns={['Instance type', 'Hourly', 'Daily', 'Monthly estimate', 'Source']}>
            {perHour
              .flatMap(({ id }) => (q.data?.pricing[id] ?? []).filter(isInstancePrice))
              .map((p) => (
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

type CachePrices = Pick<TokenPrice, 'per_1k_cache_read_tokens_usd' | 'per_1k_cache_write_tokens_usd' | 'per_1k_cache_write_1h_tokens_usd'>;

/** A model's cache prices, read / 5-minute write / 1-hour write ("—" for one it has none of). */
function cachePrices(p: CachePrices): string {
  const prices = [p.per_1k_cache_read_tokens_usd, p.per_1k_cache_write_tokens_usd, p.per_1k_cache_write_1h_tokens_usd];
  return prices.every((v) => v === undefined) ? '—' : prices.map((v) => (v === undefined ? '—' : usd(v))).join(' / ');
}

/** A model's Flex and Priority prices in force (a platform with service tiers): input / output, and whether an admin set them. */
function tierPrices(tiers: TokenPrice['service_tiers']): string {
  const shown = (['flex', 'priority'] as const).flatMap((tier) => {
    const t = tiers?.[tier];
    if (!t) return [];
    const source = t.source === 'admin' ? 'set by an admin' : 'working figure';
    return [`${tier === 'flex' ? 'Flex' : 'Priority'} ${usd(t.per_1k_input_tokens_usd)} / ${usd(t.per_1k_output_tokens_usd)} (${source})`];
  });
  return shown.length > 0 ? shown.join('; ') : '—';
}

/** An optional price field: empty sends nothing. */
const optionalUsd = (value: string) => (value.trim() === '' ? undefined : Number(value));

/** Flex or Priority input and output prices, both or neither (empty: the working figure stays). */
function TierFields({
  tier,
  value,
  onChange,
}: {
  tier: string;
  value: { input: string; output: string };
  onChange: (v: { input: string; output: string }) => void;
}) {
  const either = value.input.trim() !== '' || value.output.trim() !== '';
  return (
    <div className="row">
      {(['input', 'output'] as const).map((side) => (
        <UsdField
          key={side}
          label={`${tier}: USD per 1K ${side} tokens (optional)`}
          value={value[side]}
          required={either}
          onChange={(v) => onChange({ ...value, [side]: v })}
        />
      ))}
    </div>
  );
}

const tierEntry = (value: { input: string; output: string }) =>
  value.input.trim() === '' && value.output.trim() === ''
    ? undefined
    : { per_1k_input_tokens_usd: Number(value.input), per_1k_output_tokens_usd: Number(value.output) };

function SetPrice({ platforms, onSaved }: { platforms: PlatformDescription[]; onSaved: () => void }) {
  const [described, setDescribed] = useState(platforms[0]);
  const platform = described?.id;
  // A platform billed by the hour is priced per instance type; the others per 1K tokens of a model.
  const perHour = described?.billing === 'per_hour';
  const tiered = described?.service_tiers === true;
  const [key, setKey] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const [hourly, setHourly] = useState('');
  const [cache, setCache] = useState({ read: '', write: '', write1h: '' });
  const [flex, setFlex] = useState({ input: '', output: '' });
  const [priority, setPriority] = useState({ input: '', output: '' });
  const tiers = tiered && (tierEntry(flex) || tierEntry(priority)) ? { flex: tierEntry(flex), priority: tierEntry(priority) } : undefined;
  const [saved, setSaved] = useState<string>();
  const save = useAction(() =>
    unwrap(
      api.POST('/api/pricing', {
        body: {
          entries: [
            // The entry's shape follows the platform's billing (the service checks it): one of the union's branches.
            (perHour
              ? { platform, instanceType: key.trim(), hourly_usd: Number(hourly) }
              : {
                  platform,
                  modelId: key.trim(),
                  per_1k_input_tokens_usd: Number(input),
                  per_1k_output_tokens_usd: Number(output),
                  per_1k_cache_read_tokens_usd: optionalUsd(cache.read),
                  per_1k_cache_write_tokens_usd: optionalUsd(cache.write),
                  per_1k_cache_write_1h_tokens_usd: optionalUsd(cache.write1h),
                  ...(tiers ? { service_tiers: tiers } : {}),
                }) as Schemas['PriceEntryInput'],
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
              <select id={id} value={platform} onChange={(e) => setDescribed(platforms.find((p) => p.id === e.target.value))}>
                {platforms.map((p) => (
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
          <UsdField label="USD per hour" value={hourly} onChange={setHourly} required />
        ) : (
          <div className="row">
            <UsdField label="USD per 1K input tokens" value={input} onChange={setInput} required />
            <UsdField label="USD per 1K output tokens" value={output} onChange={setOutput} required />
          </div>
        )}
        {perHour ? null : (
          <div className="row">
            {(
              [
                ['read', 'cache reads'],
                ['write', 'cache writes, 5 minutes'],
                ['write1h', 'cache writes, 1 hour'],
              ] as const
            ).map(([name, label]) => (
              <UsdField key={name} label={`USD per 1K ${label} (optional)`} value={cache[name]} onChange={(v) => setCache({ ...cache, [name]: v })} />
            ))}
          </div>
        )}
        {tiered ? (
          <>
            <p className="hint">
              Flex and Priority: the model&apos;s own prices for those tiers, from Bedrock&apos;s pricing page. Left empty, a tier is charged at the
              service&apos;s working figure (docs/bedrock.md, Service tiers). Saving replaces the model&apos;s whole entry.
            </p>
            <TierFields tier="Flex" value={flex} onChange={setFlex} />
            <TierFields tier="Priority" value={priority} onChange={setPriority} />
          </>
        ) : null}
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
