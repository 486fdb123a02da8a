import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useQuery } from '../api/hooks';
import type { Platform } from '../api/platforms';
import { GuardrailFields } from '../components/GuardrailFields';
import { PlatformPage } from '../components/Platforms';
import { ErrorText, Facts, Field, Spinner } from '../components/ui';
import { int, list, usd } from '../format';

type ManagedPlan = Schemas['DeployManagedPlanResponse'];
type DedicatedPlan = Schemas['DeployDedicatedPlanResponse'];
type HostedPlan = Schemas['DeployHostedPlanResponse'];
type FactItems = Parameters<typeof Facts>[0]['items'];
type Deployed = { id: string; endpointName: string; message: string; status: string };

/** A name the service accepts on every platform: letters, digits and hyphens, 1 to 63. */
function suggestName(modelId: string): string {
  const last = (modelId.split('/').at(-1) ?? modelId).split(':')[0] ?? '';
  const name = last
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return name || 'endpoint';
}

export default function Deploy() {
  const params = useParams<{ platform?: string }>();
  return (
    <PlatformPage
      title="Deploy"
      base="/deploy"
      requested={params.platform}
      lead="You see the plan and its cost first; nothing happens until you confirm."
    >
      {(platform) => {
        const Form = FORMS[platform];
        return <Form key={platform} />;
      }}
    </PlatformPage>
  );
}

/** Each platform deploys through its own route, with its own request: one form each. */
const FORMS: Record<Platform, () => ReactNode> = { managed: ManagedForm, dedicated: DedicatedForm, hosted: HostedForm };

function usePrefill(name: string): string {
  return new URLSearchParams(useSearch()).get(name) ?? '';
}

/**
 * Plan first, then deploy on confirmation: the shared flow of the three forms. `call` is the form's
 * one request, asked once as a dry run (its plan, shown by the form's `View`) and once for real (the
 * deployment it started).
 */
function useDeployFlow<P>(call: (dryRun: boolean) => Promise<unknown>, View: (props: { plan: P }) => ReactNode) {
  const planCall = async () => (await call(true)) as P;
  const deployCall = async () => started((await call(false)) as Deployed);
  const [plan, setPlan] = useState<P>();
  const [deployed, setDeployed] = useState<Deployed>();
  const planning = useAction(planCall);
  const deploying = useAction(deployCall);
  return {
    plan,
    View,
    deployed,
    planning,
    deploying,
    reset: () => {
      setPlan(undefined);
      planning.setError(undefined);
      deploying.setError(undefined);
    },
    review: async (e: FormEvent) => {
      e.preventDefault();
      setPlan(undefined);
      const p = await planning.run();
      if (p) setPlan(p);
    },
    confirm: async () => {
      const d = await deploying.run();
      if (d) setDeployed(d);
    },
  };
}

function Flow<P>(props: { flow: ReturnType<typeof useDeployFlow<P>>; form: ReactNode; onSubmit: (e: FormEvent) => void; what: string }) {
  const { flow } = props;
  const { View } = flow;
  const [, navigate] = useLocation();
  if (flow.deployed) {
    return (
      <section className="panel success" aria-live="polite">
        <h2>Deployment started: {flow.deployed.endpointName}</h2>
        <p>{flow.deployed.message}</p>
        <p>
          Status now: <strong>{flow.deployed.status}</strong>. <Link href={`/resources/${flow.deployed.id}`}>Follow it on its resource page</Link>.
        </p>
        <button type="button" onClick={() => navigate(`/resources/${flow.deployed?.id}`)} className="primary">
          Open the resource
        </button>
      </section>
    );
  }
  return (
    <>
      <form onSubmit={props.onSubmit} className="form" onChange={() => flow.plan && flow.reset()}>
        {props.form}
        <ErrorText error={flow.planning.error} />
        <button type="submit" className={flow.plan ? '' : 'primary'} disabled={flow.planning.pending}>
          {flow.planning.pending ? 'Preparing the plan…' : flow.plan ? 'Review the plan again' : 'Review the plan'}
        </button>
      </form>
      {flow.planning.pending ? <Spinner label="Asking the service for a dry-run plan…" /> : null}
      {flow.plan ? (
        <section className="panel plan" aria-labelledby="plan-title">
          <h2 id="plan-title">Plan (dry run): nothing has been created yet</h2>
          <View plan={flow.plan} />
          <ErrorText error={flow.deploying.error} />
          <div className="buttons">
            <button type="button" className="primary" onClick={flow.confirm} disabled={flow.deploying.pending}>
              {flow.deploying.pending ? 'Deploying…' : `Deploy ${props.what}`}
            </button>
            <button type="button" onClick={flow.reset} disabled={flow.deploying.pending}>
              Change the settings
            </button>
          </div>
          {flow.deploying.pending ? <Spinner label="Deploying…" /> : null}
        </section>
      ) : null}
    </>
  );
}

/** Sentences from the API and the console joined as prose: each ends with a full stop, empty ones are left out. */
function sentences(...parts: string[]): string {
  return parts
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (/[.!?]$/.test(p) ? p : `${p}.`))
    .join(' ');
}

function TokenCost({ cost }: { cost: Schemas['TokenEstimate'] }) {
  return (
    <div className="cost" aria-label="Estimated cost">
      <h3>Estimated cost</h3>
      <p className="big">
        {usd(cost.per_1k_input_tokens_usd)} per 1K input tokens · {usd(cost.per_1k_output_tokens_usd)} per 1K output tokens
      </p>
      <p>
        For example, {int(cost.example.requests)} requests of {int(cost.example.input_tokens_per_request)} input and{' '}
        {int(cost.example.output_tokens_per_request)} output tokens cost about <strong>{usd(cost.example.cost_usd)}</strong>. Nothing is charged while
        it is not used.
      </p>
      <p className="hint">
        {sentences(
          cost.note,
          cost.is_estimate ? 'An estimate: this model has no price of its own in the price table' : '',
          `Price source: ${cost.price_source}`,
        )}
      </p>
    </div>
  );
}

function DedicatedPlanView({ plan: answer }: { plan: DedicatedPlan }) {
  const plan = answer.plan;
  const cost = plan.estimatedCost;
  return (
    <>
      <div className="cost" aria-label="Estimated cost">
        <h3>Estimated cost</h3>
        <p className="big">
          {usd(cost.hourly_usd)} per hour · {usd(cost.daily_usd)} per day · about {usd(cost.monthly_usd)} per month
        </p>
        <p>
          {int(cost.instance_count)} × {cost.instance_type} at {usd(cost.hourly_usd_per_instance)} an hour each, billed until the endpoint is deleted.
        </p>
        <p className="hint">{sentences(cost.note)}</p>
      </div>
      <section aria-label="Guardrails">
        <h3>Guardrails</h3>
        <ul>
          {plan.guardrails.effects.map((effect) => (
            <li key={effect}>{effect}</li>
          ))}
        </ul>
      </section>
      <Warnings warnings={plan.warnings} />
      <Facts
        items={[
          ['Endpoint name', plan.endpointName],
          ['Region', plan.region],
          ['Instances', `${plan.instanceCount} × ${plan.instanceType}`],
          ['Model package', plan.modelPackage?.displayName ?? plan.model.modelPackageArn ?? '—'],
          ['Container image', plan.model.inferenceImage ?? '—'],
          ['Execution role', <span className="mono small">{plan.roleArn}</span>],
          ['Subnets', list(plan.vpc.subnets)],
          ['Security groups', list(plan.vpc.securityGroups)],
          ['Endpoint', <span className="mono small">{plan.endpoint}</span>],
        ]}
      />
      <h3>Steps</h3>
      <ol>
        {plan.steps.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ol>
    </>
  );
}

/** A plan billed per token: its estimate, its warnings, its facts. */
function TokenPlan(props: { plan: { estimatedCost: Schemas['TokenEstimate']; warnings: string[] }; facts: FactItems; children?: ReactNode }) {
  return (
    <>
      <TokenCost cost={props.plan.estimatedCost} />
      <Warnings warnings={props.plan.warnings} />
      <Facts items={props.facts} />
      {props.children}
    </>
  );
}

function ManagedPlanView({ plan: answer }: { plan: ManagedPlan }) {
  const plan = answer.plan;
  return (
    <TokenPlan
      plan={plan}
      facts={[
        ['Endpoint name', plan.endpointName],
        ['Model', `${plan.modelDetails.modelName} (${plan.modelId})`],
        ['Provider', plan.modelDetails.providerName],
        ['Modalities', `${list(plan.modelDetails.inputModalities)} → ${list(plan.modelDetails.outputModalities)}`],
        ['Region', plan.region],
        ['Billing', plan.pricing.billingModel],
        ['Provisioning', plan.provisioning],
        ['Invoke endpoint', <span className="mono small">{plan.invokeEndpoint}</span>],
      ]}
    />
  );
}

function HostedPlanView({ plan: answer }: { plan: HostedPlan }) {
  const plan = answer.plan;
  return (
    <TokenPlan
      plan={plan}
      facts={[
        ['Endpoint name', plan.endpointName],
        ['Model', `${plan.modelName} (${plan.modelId})`],
        ['Task', plan.task],
        ['Billing', plan.pricing.billingModel],
        ['Endpoint', <span className="mono small">{plan.endpoint}</span>],
      ]}
    >
      <p>{answer.message}</p>
    </TokenPlan>
  );
}

function Warnings({ warnings }: { warnings: string[] }) {
  if (!warnings.length) return null;
  return (
    <ul className="warnings" aria-label="Warnings">
      {warnings.map((w) => (
        <li key={w}>{w}</li>
      ))}
    </ul>
  );
}

/** The model picker of the managed and hosted forms, over that platform's catalogue. */
function ModelSelect(props: {
  options?: { id: string; label: string }[];
  loading: boolean;
  error: unknown;
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <>
      <Field label="Model">
        {(id) => (
          <select id={id} value={props.value} required onChange={(e) => props.onChange(e.target.value)}>
            <option value="">{props.loading ? 'Loading models…' : 'Choose a model'}</option>
            {props.options?.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ErrorText error={props.error} />
    </>
  );
}

const started = (r: { id: string; endpointName: string; message: string; status: string }): Deployed => ({
  id: r.id,
  endpointName: r.endpointName,
  message: r.message,
  status: r.status,
});

function ManagedForm() {
  const catalogue = useQuery(() => unwrap(api.GET('/api/models/managed')), []);
  const [modelId, setModelId] = useState(usePrefill('modelId'));
  const [endpointName, setEndpointName] = useState(() => (modelId ? suggestName(modelId) : ''));
  const [region, setRegion] = useState('');
  // "auto": the model's on-demand id where Bedrock offers one, else the geographic inference profile of
  // the service's Region; the plan shows which (plan.inferenceProfile).
  const body = () => ({ modelId, endpointName: endpointName.trim(), inferenceProfile: 'auto', ...(region.trim() ? { region: region.trim() } : {}) });
  const flow = useDeployFlow((dryRun) => unwrap(api.POST('/api/deploy/managed', { body: { ...body(), dryRun } })), ManagedPlanView);
  return (
    <Flow
      flow={flow}
      onSubmit={flow.review}
      what="access"
      form={
        <>
          <ModelSelect
            options={catalogue.data?.models.map((m) => ({ id: m.modelId, label: `${m.modelId} (${m.providerName})` }))}
            loading={catalogue.loading}
            error={catalogue.error}
            value={modelId}
            onChange={(id) => {
              setModelId(id);
              if (!endpointName) setEndpointName(suggestName(id));
            }}
          />
          <Field label="Endpoint name" hint="Letters, digits and hyphens; unique among managed resources.">
            {(id, hint) => (
              <input id={id} aria-describedby={hint} value={endpointName} onChange={(e) => setEndpointName(e.target.value)} required maxLength={63} />
            )}
          </Field>
          <Field label="Region (optional)" hint="Defaults to the service's region.">
            {(id, hint) => (
              <input id={id} aria-describedby={hint} value={region} onChange={(e) => setRegion(e.target.value)} placeholder="us-east-1" />
            )}
          </Field>
        </>
      }
    />
  );
}

function HostedForm() {
  const catalogue = useQuery(() => unwrap(api.GET('/api/models/hosted')), []);
  const [modelId, setModelId] = useState(usePrefill('modelId'));
  const [endpointName, setEndpointName] = useState('');
  const body = () => ({ modelId, ...(endpointName.trim() ? { endpointName: endpointName.trim() } : {}) });
  const flow = useDeployFlow((dryRun) => unwrap(api.POST('/api/deploy/hosted', { body: { ...body(), dryRun } })), HostedPlanView);
  return (
    <Flow
      flow={flow}
      onSubmit={flow.review}
      what="access"
      form={
        <>
          <ModelSelect
            options={catalogue.data?.models.map((m) => ({ id: m.id, label: `${m.id} (${m.task})` }))}
            loading={catalogue.loading}
            error={catalogue.error}
            value={modelId}
            onChange={setModelId}
          />
          <Field label="Endpoint name (optional)" hint="Derived from the model when empty; unique among hosted resources.">
            {(id, hint) => (
              <input id={id} aria-describedby={hint} value={endpointName} onChange={(e) => setEndpointName(e.target.value)} maxLength={63} />
            )}
          </Field>
        </>
      }
    />
  );
}

function DedicatedForm() {
  const catalogue = useQuery(() => unwrap(api.GET('/api/models/dedicated', { params: { query: { source: 'all', max: 50 } } })), []);
  const [modelPackageArn, setModelPackageArn] = useState(usePrefill('modelPackageArn'));
  const [endpointName, setEndpointName] = useState('');
  const [instanceType, setInstanceType] = useState('');
  const [instanceCount, setInstanceCount] = useState(1);
  const [acceptEula, setAcceptEula] = useState(false);
  const [inferenceImage, setInferenceImage] = useState('');
  const [modelDataUrl, setModelDataUrl] = useState('');
  const [executionRoleArn, setExecutionRoleArn] = useState('');
  const [idleTimeout, setIdleTimeout] = useState('60');
  const [budget, setBudget] = useState('');
  const selected = useMemo(() => catalogue.data?.models.find((m) => m.modelPackageArn === modelPackageArn), [catalogue.data, modelPackageArn]);
  const types = selected?.supportedRealtimeInferenceInstanceTypes ?? [];
  useEffect(() => {
    if (selected && !types.includes(instanceType)) setInstanceType(types[0] ?? '');
    if (selected && !endpointName) setEndpointName(suggestName(selected.displayName));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected]);
  const body = () => ({
    endpointName: endpointName.trim(),
    instanceType,
    instanceCount,
    ...(modelPackageArn ? { modelPackageArn } : {}),
    ...(inferenceImage.trim() ? { inferenceImage: inferenceImage.trim() } : {}),
    ...(modelDataUrl.trim() ? { modelDataUrl: modelDataUrl.trim() } : {}),
    ...(executionRoleArn.trim() ? { executionRoleArn: executionRoleArn.trim() } : {}),
    ...(acceptEula ? { acceptEula } : {}),
    ...(idleTimeout.trim() ? { idleTimeoutMinutes: Number(idleTimeout) } : {}),
    ...(budget.trim() ? { monthlyBudgetUsd: Number(budget) } : {}),
  });
  const flow = useDeployFlow((dryRun) => unwrap(api.POST('/api/deploy/dedicated', { body: { ...body(), dryRun } })), DedicatedPlanView);
  return (
    <Flow
      flow={flow}
      onSubmit={flow.review}
      what="the endpoint"
      form={
        <>
          <Field label="Model package">
            {(id) => (
              <select id={id} value={modelPackageArn} onChange={(e) => setModelPackageArn(e.target.value)}>
                <option value="">{catalogue.loading ? 'Loading model packages…' : 'None: use a container image (below)'}</option>
                {catalogue.data?.models.map((m) => (
                  <option key={m.modelPackageArn} value={m.modelPackageArn}>
                    {m.displayName}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <ErrorText error={catalogue.error} />
          <Field label="Endpoint name" hint="1 to 63 letters, digits and hyphens, starting and ending with a letter or digit.">
            {(id, hint) => (
              <input id={id} aria-describedby={hint} value={endpointName} onChange={(e) => setEndpointName(e.target.value)} required maxLength={63} />
            )}
          </Field>
          <div className="row">
            <Field label="Instance type" hint={selected ? 'The types this model package supports.' : 'A priced instance type such as ml.g5.xlarge.'}>
              {(id, hint) =>
                types.length ? (
                  <select id={id} aria-describedby={hint} value={instanceType} onChange={(e) => setInstanceType(e.target.value)} required>
                    {types.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={id}
                    aria-describedby={hint}
                    value={instanceType}
                    onChange={(e) => setInstanceType(e.target.value)}
                    required
                    placeholder="ml.g5.xlarge"
                  />
                )
              }
            </Field>
            <Field label="Instance count">
              {(id) => (
                <input
                  id={id}
                  type="number"
                  min={1}
                  max={10}
                  value={instanceCount}
                  onChange={(e) => setInstanceCount(Math.max(1, Math.min(10, Number(e.target.value) || 1)))}
                />
              )}
            </Field>
          </div>
          <GuardrailFields idle={idleTimeout} onIdle={setIdleTimeout} budget={budget} onBudget={setBudget} />
          <div className="check">
            <input id="accept-eula" type="checkbox" checked={acceptEula} onChange={(e) => setAcceptEula(e.target.checked)} />
            <label htmlFor="accept-eula">Accept the model's licence (needed for gated public models)</label>
          </div>
          <details>
            <summary>Advanced: container image instead of a model package, execution role</summary>
            <Field label="Inference image">
              {(id) => (
                <input
                  id={id}
                  value={inferenceImage}
                  onChange={(e) => setInferenceImage(e.target.value)}
                  placeholder="123456789012.dkr.ecr.us-east-1.amazonaws.com/image:tag"
                />
              )}
            </Field>
            <Field label="Model data URL">
              {(id) => (
                <input id={id} value={modelDataUrl} onChange={(e) => setModelDataUrl(e.target.value)} placeholder="s3://bucket/model.tar.gz" />
              )}
            </Field>
            <Field label="Execution role ARN" hint="Defaults to the service's configured role.">
              {(id, hint) => <input id={id} aria-describedby={hint} value={executionRoleArn} onChange={(e) => setExecutionRoleArn(e.target.value)} />}
            </Field>
          </details>
        </>
      }
    />
  );
}
