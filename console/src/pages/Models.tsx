import { useDeferredValue, useState, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import type { Platform } from '../api/platforms';
import { PlatformPage } from '../components/Platforms';
import { api, unwrap, type Schemas } from '../api/client';
import { useQuery } from '../api/hooks';
import { getSession, isAdmin } from '../api/session';
import { Badge, ErrorText, Field, Spinner, TableBox } from '../components/ui';
import { dateTime, lifecycle, list } from '../format';

const modelHref = (platform: Platform, id: string) => `/model?platform=${platform}&id=${encodeURIComponent(id)}`;

const matches = (query: string, ...fields: (string | readonly string[])[]) => {
  const q = query.trim().toLowerCase();
  return !q || fields.some((f) => (Array.isArray(f) ? f.join(' ') : (f as string)).toLowerCase().includes(q));
};

export default function Models() {
  const params = useParams<{ platform?: string }>();
  const [search, setSearch] = useState('');
  const query = useDeferredValue(search);
  return (
    <PlatformPage title="Models" base="/models" requested={params.platform}>
      {(platform) => {
        const Catalogue = CATALOGUES[platform];
        return (
          <>
            <div className="toolbar">
              <Field label="Search models" className="grow">
                {(id) => (
                  <input id={id} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="name, provider, modality…" />
                )}
              </Field>
            </div>
            <Catalogue platform={platform} query={query} />
          </>
        );
      }}
    </PlatformPage>
  );
}

/** Each platform's catalogue route answers its own shape: one view each, found by the platform's id. */
type CatalogueProps = { platform: Platform; query: string };
const CATALOGUES: Record<Platform, (props: CatalogueProps) => ReactNode> = { managed: Managed, dedicated: Dedicated, hosted: Hosted };

function Managed({ platform, query }: CatalogueProps) {
  const q = useQuery(() => unwrap(api.GET('/api/models/managed')), []);
  if (q.loading && !q.data) return <Spinner label="Loading the managed catalogue…" />;
  if (q.error) return <ErrorText error={q.error} />;
  const models = (q.data?.models ?? []).filter((m) => matches(query, m.modelId, m.providerName, m.inputModalities, m.outputModalities));
  return (
    <>
      <p className="count">
        {models.length} of {q.data?.models.length ?? 0} models in {q.data?.region}
      </p>
      <TableBox label="Managed models" columns={['Model', 'Provider', 'Input', 'Output', 'Invoke through', 'Lifecycle']}>
        {models.map((m) => (
          <tr key={m.modelId}>
            <th scope="row">
              <Link href={modelHref(platform, m.modelId)}>{m.modelId}</Link>
            </th>
            <td>{m.providerName}</td>
            <td>{list(m.inputModalities)}</td>
            <td>{list(m.outputModalities)}</td>
            <td>
              <InvocationWays ways={m.invocation} />
            </td>
            <td>{m.modelLifecycle.status === 'ACTIVE' ? 'Active' : <Badge value={lifecycle(m.modelLifecycle)} />}</td>
          </tr>
        ))}
      </TableBox>
    </>
  );
}

/** On demand, each system profile (its destination Regions on hover), and whether an application profile can be made. */
function InvocationWays({ ways }: { ways: Schemas['ManagedModelEntry']['invocation'] }) {
  return (
    <ul className="plain">
      {ways.onDemand ? <li>on demand</li> : null}
      {ways.profiles.map((p) => (
        <li key={p.id} title={`Destination Regions: ${p.regions.join(', ')}`}>
          <span className="mono small">{p.id}</span> ({p.scope}, {p.regions.length} Regions)
        </li>
      ))}
      {ways.applicationProfile ? <li>application profile</li> : <li>provisioned throughput only</li>}
    </ul>
  );
}

function Hosted({ platform, query }: CatalogueProps) {
  const q = useQuery(() => unwrap(api.GET('/api/models/hosted')), []);
  if (q.loading && !q.data) return <Spinner label="Loading the hosted catalogue…" />;
  if (q.error) return <ErrorText error={q.error} />;
  const models = (q.data?.models ?? []).filter((m) => matches(query, m.id, m.name, m.task, m.tags));
  return (
    <>
      <p className="count">
        {models.length} of {q.data?.models.length ?? 0} models
      </p>
      <TableBox label="Hosted models" columns={['Model', 'Task', 'Tags']}>
        {models.map((m) => (
          <tr key={m.id}>
            <th scope="row">
              <Link href={modelHref(platform, m.id)}>{m.id}</Link>
            </th>
            <td>{m.task}</td>
            <td>{list(m.tags)}</td>
          </tr>
        ))}
      </TableBox>
    </>
  );
}

function Dedicated({ platform, query }: CatalogueProps) {
  const [source, setSource] = useState<'public' | 'account' | 'all'>('all');
  // The dedicated catalogue is searched by the service (it can be large); at most 50 answers.
  const q = useQuery(
    () =>
      unwrap(
        api.GET('/api/models/dedicated', {
          params: { query: { source, max: 50, ...(query.trim() ? { search: query.trim().slice(0, 100) } : {}) } },
        }),
      ),
    [source, query],
  );
  const admin = isAdmin(getSession()?.user.role);
  return (
    <>
      <div className="toolbar">
        <Field label="Source">
          {(id) => (
            <select id={id} value={source} onChange={(e) => setSource(e.target.value as typeof source)}>
              <option value="all">All</option>
              <option value="public">Public model hub</option>
              <option value="account">This account's model packages</option>
            </select>
          )}
        </Field>
      </div>
      {q.loading ? <Spinner label="Searching the dedicated catalogue…" /> : null}
      <ErrorText error={q.error} />
      {q.data ? (
        <>
          <p className="count">
            {q.data.models.length} model packages{q.data.models.length === 50 ? ' (the first 50; narrow the search)' : ''}
          </p>
          <ul className="cards">
            {q.data.models.map((m: Schemas['DedicatedModelEntry']) => (
              <li key={m.modelPackageArn} className="card">
                <h2>{m.displayName}</h2>
                <p className="mono small">{m.modelPackageArn}</p>
                <p>
                  {m.modelApprovalStatus} · created {dateTime(m.creationTime)}
                </p>
                <p>Real-time instance types: {list(m.supportedRealtimeInferenceInstanceTypes)}</p>
                <p>Content types: {list(m.supportedContentTypes)}</p>
                {m.inferenceContainers[0] ? (
                  <p>
                    Framework: {m.inferenceContainers[0].framework} {m.inferenceContainers[0].frameworkVersion}
                  </p>
                ) : null}
                {admin ? (
                  <Link className="button small" href={`/deploy/${platform}?modelPackageArn=${encodeURIComponent(m.modelPackageArn)}`}>
                    Deploy {m.displayName}
                  </Link>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
