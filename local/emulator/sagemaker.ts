/**
 * Amazon SageMaker control plane (awsJson1.1, X-Amz-Target "SageMaker.<Op>"): the public hub and
 * model registry for discovery, and the model / endpoint-config / endpoint resources for deployment.
 *
 * Endpoint lifecycles are computed lazily from timestamps whenever an endpoint is looked at, so no
 * timers run and a test can shorten or lengthen every transition with one number.
 */
import { HUB_MODELS, MODEL_PACKAGES, PUBLIC_HUB, type HubModel, type ModelPackage } from './catalogue';
import {
  EmulatorError,
  compact,
  epochSeconds,
  jsonReply,
  paginate,
  parseJson,
  type Ctx,
  type Endpoint,
  type EmulatorState,
  type ProductionVariant,
  type Reply,
  type ResolvedOptions,
  type Route,
  type ServiceDef,
  type Tag,
} from './shared';

const CONTENT_TYPE = 'application/x-amz-json-1.1';
const NAME_PATTERN = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;
const reply = (value: unknown = {}) => jsonReply(value, CONTENT_TYPE);
const validation = (message: string) => new EmulatorError(400, 'ValidationException', message);
const resourceNotFound = (message: string) => new EmulatorError(400, 'ResourceNotFound', message);

type Kind = 'endpoint' | 'endpoint-config' | 'model';
const KIND_WORDS: Record<Kind, string> = { endpoint: 'endpoint', 'endpoint-config': 'endpoint configuration', model: 'model' };

/** SageMaker lower-cases resource names inside ARNs. */
function arn(opts: ResolvedOptions, kind: Kind | 'model-package', name: string): string {
  return `arn:aws:sagemaker:${opts.region}:${opts.accountId}:${kind}/${name.toLowerCase()}`;
}

const notFound = (opts: ResolvedOptions, kind: Kind, name: string) => validation(`Could not find ${KIND_WORDS[kind]} "${arn(opts, kind, name)}".`);
const alreadyExists = (opts: ResolvedOptions, kind: Kind, name: string) =>
  validation(`Cannot create already existing ${KIND_WORDS[kind]} "${arn(opts, kind, name)}".`);
const inProgress = (opts: ResolvedOptions, name: string) => validation(`Cannot update in-progress endpoint "${arn(opts, 'endpoint', name)}".`);

function checkName(value: unknown, member: string): string {
  const name = typeof value === 'string' ? value : '';
  if (!NAME_PATTERN.test(name)) {
    throw validation(
      `1 validation error detected: Value '${name}' at '${member}' failed to satisfy constraint: ` +
        'Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}',
    );
  }
  return name;
}

// ---------------------------------------------------------------- endpoint lifecycle

const HEALTH_CHECK_FAILURE = (variant: string) =>
  `The primary container for production variant ${variant} did not pass the ping health check. ` + 'Please check CloudWatch logs for this endpoint.';

/** Brings an endpoint's status up to date; returns undefined once a deletion has completed. */
export function settleEndpoint(state: EmulatorState, opts: ResolvedOptions, name: string): Endpoint | undefined {
  const ep = state.endpoints.get(name);
  if (!ep?.pending) return ep;
  const { pending } = ep;
  const doneAt = pending.startedAt + opts.lifecycleDelayMs;
  if (Date.now() < doneAt) return ep;

  ep.pending = undefined;
  ep.modifiedAt = doneAt;
  switch (pending.kind) {
    case 'create':
      ep.status = pending.failureReason ? 'Failed' : 'InService';
      ep.failureReason = pending.failureReason;
      ep.deployed = !pending.failureReason;
      break;
    case 'update':
      // A failed update rolls back: the endpoint keeps serving its previous config and says why.
      ep.status = 'InService';
      ep.failureReason = pending.failureReason;
      if (!pending.failureReason && pending.configName) {
        ep.configName = pending.configName;
        ep.instanceCounts = undefined;
      }
      ep.deployed = true;
      break;
    case 'capacity':
      ep.status = 'InService';
      ep.instanceCounts = { ...ep.instanceCounts, ...pending.instanceCounts };
      break;
    case 'delete':
      state.endpoints.delete(name);
      state.tags.delete(ep.arn);
      return undefined;
  }
  return ep;
}

/** The models behind an endpoint, for fault matching and the runtime's replies. */
export function endpointModels(state: EmulatorState, configName: string | undefined): string[] {
  const config = configName ? state.endpointConfigs.get(configName) : undefined;
  return config ? config.variants.map((v) => v.ModelName) : [];
}

/**
 * What runs behind an endpoint's first variant: the container image (given, or the model package's)
 * and everything that names the model (image, package, artefacts), for the runtime to decide what the
 * container answers (a TEI container embeds; a TGI/LMI one chats) and whether its model reads images.
 */
export function endpointContainer(state: EmulatorState, opts: ResolvedOptions, configName: string | undefined): { image: string; names: string } {
  const model = state.models.get(endpointModels(state, configName)[0] ?? '');
  const container = (model?.input.PrimaryContainer ?? (model?.input.Containers as unknown[] | undefined)?.[0] ?? {}) as {
    Image?: string;
    ModelPackageName?: string;
    ModelDataUrl?: string;
    ModelDataSource?: { S3DataSource?: { S3Uri?: string } };
  };
  const wanted = (container.ModelPackageName ?? '').toLowerCase();
  const pkg = wanted ? MODEL_PACKAGES.find((p) => packageArn(opts, p) === wanted) : undefined;
  const image = container.Image ?? (pkg?.container(opts.region, opts.accountId).Image as string | undefined) ?? '';
  const names = [image, wanted, container.ModelDataUrl, container.ModelDataSource?.S3DataSource?.S3Uri, model?.name].filter(Boolean).join(' ');
  return { image, names };
}

function variantSummaries(state: EmulatorState, ep: Endpoint) {
  const config = state.endpointConfigs.get(ep.configName);
  if (!ep.deployed || !config) return undefined;
  return config.variants.map((v) => {
    const model = state.models.get(v.ModelName);
    const image = (model?.input.PrimaryContainer as { Image?: string } | undefined)?.Image;
    const count = ep.instanceCounts?.[v.VariantName] ?? v.InitialInstanceCount ?? 1;
    const desired = ep.pending?.kind === 'capacity' ? (ep.pending.instanceCounts?.[v.VariantName] ?? count) : count;
    const weight = v.InitialVariantWeight ?? 1;
    return compact({
      VariantName: v.VariantName,
      DeployedImages: image ? [{ SpecifiedImage: image, ResolvedImage: image, ResolutionTime: epochSeconds(ep.createdAt) }] : undefined,
      CurrentWeight: weight,
      DesiredWeight: weight,
      CurrentInstanceCount: count,
      DesiredInstanceCount: desired,
    });
  });
}

/** What an Updating endpoint reports about the config it is moving to. */
function pendingDeployment(state: EmulatorState, ep: Endpoint) {
  const pending = ep.pending;
  if (pending?.kind !== 'update') return undefined;
  const started = epochSeconds(pending.startedAt);
  return {
    EndpointConfigName: pending.configName,
    StartTime: started,
    ProductionVariants: state.endpointConfigs.get(pending.configName ?? '')?.variants.map((v) => ({
      VariantName: v.VariantName,
      DesiredInstanceCount: v.InitialInstanceCount ?? 1,
      InstanceType: v.InstanceType,
      VariantStatus: [{ Status: 'Creating', StartTime: started }],
    })),
  };
}

function describeEndpointOutput(state: EmulatorState, ep: Endpoint) {
  return compact({
    EndpointName: ep.name,
    EndpointArn: ep.arn,
    EndpointConfigName: ep.configName,
    ProductionVariants: variantSummaries(state, ep),
    EndpointStatus: ep.status,
    FailureReason: ep.failureReason,
    CreationTime: epochSeconds(ep.createdAt),
    LastModifiedTime: epochSeconds(ep.modifiedAt),
    PendingDeploymentSummary: pendingDeployment(state, ep),
  });
}

function failureFor(ctx: Ctx, configName: string): string | undefined {
  if (!ctx.fail) return undefined;
  const variant = ctx.state.endpointConfigs.get(configName)?.variants[0]?.VariantName ?? 'AllTraffic';
  return HEALTH_CHECK_FAILURE(variant);
}

function requireConfigAndModels(ctx: Ctx, configName: string): void {
  const config = ctx.state.endpointConfigs.get(configName);
  if (!config) throw notFound(ctx.opts, 'endpoint-config', configName);
  for (const v of config.variants) {
    if (!ctx.state.models.has(v.ModelName)) throw notFound(ctx.opts, 'model', v.ModelName);
  }
}

interface EndpointInput {
  EndpointName?: string;
  EndpointConfigName?: string;
  Tags?: unknown;
}

function createEndpoint(ctx: Ctx, input: EndpointInput): Reply {
  const name = checkName(input.EndpointName, 'endpointName');
  const configName = checkName(input.EndpointConfigName, 'endpointConfigName');
  const tags = checkTags(input.Tags);
  if (settleEndpoint(ctx.state, ctx.opts, name)) throw alreadyExists(ctx.opts, 'endpoint', name);
  requireConfigAndModels(ctx, configName);
  const now = Date.now();
  const ep: Endpoint = {
    name,
    arn: arn(ctx.opts, 'endpoint', name),
    configName,
    status: 'Creating',
    createdAt: now,
    modifiedAt: now,
    deployed: false,
    pending: { kind: 'create', startedAt: now, failureReason: failureFor(ctx, configName) },
  };
  ctx.state.endpoints.set(name, ep);
  setTags(ctx.state, ep.arn, tags);
  return reply({ EndpointArn: ep.arn });
}

function existingEndpoint(ctx: Ctx, value: unknown): Endpoint {
  const name = checkName(value, 'endpointName');
  const ep = settleEndpoint(ctx.state, ctx.opts, name);
  if (!ep) throw notFound(ctx.opts, 'endpoint', name);
  return ep;
}

function updateEndpoint(ctx: Ctx, input: EndpointInput): Reply {
  const ep = existingEndpoint(ctx, input.EndpointName);
  const configName = checkName(input.EndpointConfigName, 'endpointConfigName');
  if (ep.status !== 'InService' && ep.status !== 'Failed') throw inProgress(ctx.opts, ep.name);
  requireConfigAndModels(ctx, configName);
  const now = Date.now();
  ep.status = 'Updating';
  ep.modifiedAt = now;
  ep.failureReason = undefined;
  ep.pending = { kind: 'update', startedAt: now, configName, failureReason: failureFor(ctx, configName) };
  return reply({ EndpointArn: ep.arn });
}

interface CapacityInput {
  EndpointName?: string;
  DesiredWeightsAndCapacities?: { VariantName?: string; DesiredInstanceCount?: number; DesiredWeight?: number }[];
}

/** A change of instance count on the running config, as an operator does it in the console or CLI. */
function updateEndpointWeightsAndCapacities(ctx: Ctx, input: CapacityInput): Reply {
  const ep = existingEndpoint(ctx, input.EndpointName);
  if (ep.status !== 'InService') throw inProgress(ctx.opts, ep.name);
  const wanted = Array.isArray(input.DesiredWeightsAndCapacities) ? input.DesiredWeightsAndCapacities : [];
  if (wanted.length === 0) {
    throw validation(
      "1 validation error detected: Value '[]' at 'desiredWeightsAndCapacities' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  }
  const variants = new Set(ctx.state.endpointConfigs.get(ep.configName)?.variants.map((v) => v.VariantName));
  const missing = wanted.map((w) => String(w.VariantName)).filter((v) => !variants.has(v));
  if (missing.length > 0) throw validation(`The variant name(s) "${missing.join(', ')}" is/are not present in the endpoint.`);
  const counts: Record<string, number> = {};
  for (const w of wanted) {
    if (w.DesiredInstanceCount === undefined) continue;
    if (!Number.isInteger(w.DesiredInstanceCount) || w.DesiredInstanceCount < 0) {
      throw validation(
        `1 validation error detected: Value '${w.DesiredInstanceCount}' at 'desiredWeightsAndCapacities.1.member.desiredInstanceCount' failed to satisfy constraint: Member must have value greater than or equal to 0`,
      );
    }
    counts[String(w.VariantName)] = w.DesiredInstanceCount;
  }
  const now = Date.now();
  ep.status = 'Updating';
  ep.modifiedAt = now;
  ep.pending = { kind: 'capacity', startedAt: now, instanceCounts: counts };
  return reply({ EndpointArn: ep.arn });
}

function deleteEndpoint(ctx: Ctx, input: EndpointInput): Reply {
  const ep = existingEndpoint(ctx, input.EndpointName);
  if (ep.status !== 'InService' && ep.status !== 'Failed') throw inProgress(ctx.opts, ep.name);
  const now = Date.now();
  ep.status = 'Deleting';
  ep.modifiedAt = now;
  ep.pending = { kind: 'delete', startedAt: now };
  return reply();
}

function describeEndpoint(ctx: Ctx, input: EndpointInput): Reply {
  return reply(describeEndpointOutput(ctx.state, existingEndpoint(ctx, input.EndpointName)));
}

function listEndpoints(ctx: Ctx, input: { NameContains?: string; StatusEquals?: string; MaxResults?: number; NextToken?: string }) {
  const endpoints = [...ctx.state.endpoints.keys()]
    .map((name) => settleEndpoint(ctx.state, ctx.opts, name))
    .filter((ep): ep is Endpoint => ep !== undefined)
    .filter((ep) => !input.NameContains || ep.name.includes(input.NameContains))
    .filter((ep) => !input.StatusEquals || ep.status === input.StatusEquals)
    .sort((a, b) => b.createdAt - a.createdAt);
  if (input.MaxResults !== undefined && (!Number.isInteger(input.MaxResults) || input.MaxResults < 1 || input.MaxResults > 100)) {
    throw validation(
      `1 validation error detected: Value '${input.MaxResults}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100`,
    );
  }
  const { page, nextToken } = paginate(endpoints, input.MaxResults, 10, input.NextToken, () => validation('Invalid pagination token.'));
  return reply(
    compact({
      Endpoints: page.map((ep) => ({
        EndpointName: ep.name,
        EndpointArn: ep.arn,
        CreationTime: epochSeconds(ep.createdAt),
        LastModifiedTime: epochSeconds(ep.modifiedAt),
        EndpointStatus: ep.status,
      })),
      NextToken: nextToken,
    }),
  );
}

// ---------------------------------------------------------------- endpoint configs and models

function createEndpointConfig(ctx: Ctx, input: { EndpointConfigName?: string; ProductionVariants?: ProductionVariant[]; Tags?: unknown }) {
  const name = checkName(input.EndpointConfigName, 'endpointConfigName');
  const tags = checkTags(input.Tags);
  if (ctx.state.endpointConfigs.has(name)) throw alreadyExists(ctx.opts, 'endpoint-config', name);
  const variants = Array.isArray(input.ProductionVariants) ? input.ProductionVariants : [];
  if (variants.length === 0) {
    throw validation(
      "1 validation error detected: Value '[]' at 'productionVariants' failed to satisfy constraint: " +
        'Member must have length greater than or equal to 1',
    );
  }
  variants.forEach((v, i) => {
    checkName(v.VariantName, `productionVariants.${i + 1}.member.variantName`);
    const model = checkName(v.ModelName, `productionVariants.${i + 1}.member.modelName`);
    if (!ctx.state.models.has(model)) throw notFound(ctx.opts, 'model', model);
  });
  const { Tags: _tags, ...rest } = input;
  const config = { name, arn: arn(ctx.opts, 'endpoint-config', name), createdAt: Date.now(), variants, input: rest };
  ctx.state.endpointConfigs.set(name, config);
  setTags(ctx.state, config.arn, tags);
  return reply({ EndpointConfigArn: config.arn });
}

function existingConfig(ctx: Ctx, value: unknown) {
  const name = checkName(value, 'endpointConfigName');
  const config = ctx.state.endpointConfigs.get(name);
  if (!config) throw notFound(ctx.opts, 'endpoint-config', name);
  return config;
}

function describeEndpointConfig(ctx: Ctx, input: { EndpointConfigName?: string }) {
  const config = existingConfig(ctx, input.EndpointConfigName);
  return reply({
    ...config.input,
    EndpointConfigName: config.name,
    EndpointConfigArn: config.arn,
    ProductionVariants: config.variants,
    CreationTime: epochSeconds(config.createdAt),
  });
}

function deleteEndpointConfig(ctx: Ctx, input: { EndpointConfigName?: string }) {
  const config = existingConfig(ctx, input.EndpointConfigName);
  ctx.state.endpointConfigs.delete(config.name);
  ctx.state.tags.delete(config.arn);
  return reply();
}

function createModel(ctx: Ctx, input: { ModelName?: string; PrimaryContainer?: unknown; Containers?: unknown[]; Tags?: unknown }) {
  const name = checkName(input.ModelName, 'modelName');
  const tags = checkTags(input.Tags);
  if (ctx.state.models.has(name)) throw alreadyExists(ctx.opts, 'model', name);
  if (!input.PrimaryContainer && !(Array.isArray(input.Containers) && input.Containers.length > 0)) {
    throw validation('Either PrimaryContainer or Containers must be specified.');
  }
  const { Tags: _tags, ...rest } = input;
  const model = { name, arn: arn(ctx.opts, 'model', name), createdAt: Date.now(), input: rest };
  ctx.state.models.set(name, model);
  setTags(ctx.state, model.arn, tags);
  return reply({ ModelArn: model.arn });
}

function existingModel(ctx: Ctx, value: unknown) {
  const name = checkName(value, 'modelName');
  const model = ctx.state.models.get(name);
  if (!model) throw notFound(ctx.opts, 'model', name);
  return model;
}

function describeModel(ctx: Ctx, input: { ModelName?: string }) {
  const model = existingModel(ctx, input.ModelName);
  return reply({ ...model.input, ModelName: model.name, ModelArn: model.arn, CreationTime: epochSeconds(model.createdAt) });
}

function deleteModel(ctx: Ctx, input: { ModelName?: string }) {
  const model = existingModel(ctx, input.ModelName);
  ctx.state.models.delete(model.name);
  ctx.state.tags.delete(model.arn);
  return reply();
}

// ---------------------------------------------------------------- tags

const MAX_TAGS = 50;
const TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/** Tags as CreateX and AddTags take them: at most 50, keys 1-128 and values 0-256 characters, no "aws:" keys. */
function checkTags(value: unknown): Tag[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw validation("1 validation error detected: Value at 'tags' failed to satisfy constraint: Member must be a list");
  if (value.length > MAX_TAGS) {
    throw validation(
      `1 validation error detected: Value at 'tags' failed to satisfy constraint: Member must have length less than or equal to ${MAX_TAGS}`,
    );
  }
  return value.map((t: { Key?: unknown; Value?: unknown }, i) => {
    const key = typeof t?.Key === 'string' ? t.Key : '';
    const val = typeof t?.Value === 'string' ? t.Value : '';
    if (key.length < 1 || key.length > 128 || !TAG_CHARS.test(key)) {
      throw validation(
        `1 validation error detected: Value '${key}' at 'tags.${i + 1}.member.key' failed to satisfy constraint: Member must satisfy regular expression pattern: ^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$`,
      );
    }
    if (val.length > 256 || !TAG_CHARS.test(val)) {
      throw validation(
        `1 validation error detected: Value '${val}' at 'tags.${i + 1}.member.value' failed to satisfy constraint: Member must have length less than or equal to 256`,
      );
    }
    if (key.toLowerCase().startsWith('aws:')) throw validation(`System prefix 'aws:' reserved for AWS usage in tag key: ${key}`);
    return { Key: key, Value: val };
  });
}

/** Adds or overwrites tags by key, as AddTags does. */
function setTags(state: EmulatorState, resourceArn: string, tags: Tag[]): Tag[] {
  const byKey = new Map((state.tags.get(resourceArn) ?? []).map((t) => [t.Key, t]));
  for (const t of tags) byKey.set(t.Key, t);
  if (byKey.size > MAX_TAGS) throw validation(`Resource ${resourceArn} would exceed the limit of ${MAX_TAGS} tags.`);
  const all = [...byKey.values()];
  if (all.length > 0) state.tags.set(resourceArn, all);
  return all;
}

/** The ARN of an existing endpoint, endpoint configuration or model, as ListTags and AddTags take it. */
function taggable(ctx: Ctx, value: unknown): string {
  const resourceArn = typeof value === 'string' ? value.toLowerCase() : '';
  const m = /^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:\d{12}:(endpoint|endpoint-config|model)\/([a-z0-9-]+)$/.exec(resourceArn);
  if (!m) {
    throw validation(
      `1 validation error detected: Value '${String(value)}' at 'resourceArn' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:aws[a-z\\-]*:sagemaker:[a-z0-9\\-]*:[0-9]{12}:.+`,
    );
  }
  const kind = m[1] as Kind;
  const pool = kind === 'endpoint' ? ctx.state.endpoints : kind === 'endpoint-config' ? ctx.state.endpointConfigs : ctx.state.models;
  const found = [...pool.keys()].find((name) => arn(ctx.opts, kind, name) === resourceArn);
  if (!found || (kind === 'endpoint' && !settleEndpoint(ctx.state, ctx.opts, found))) throw notFound(ctx.opts, kind, m[2] as string);
  return resourceArn;
}

function addTags(ctx: Ctx, input: { ResourceArn?: string; Tags?: unknown }) {
  const resourceArn = taggable(ctx, input.ResourceArn);
  const tags = checkTags(input.Tags);
  setTags(ctx.state, resourceArn, tags);
  return reply({ Tags: tags });
}

function listTags(ctx: Ctx, input: { ResourceArn?: string; MaxResults?: number; NextToken?: string }) {
  const resourceArn = taggable(ctx, input.ResourceArn);
  const tags = ctx.state.tags.get(resourceArn) ?? [];
  const { page, nextToken } = paginate(tags, input.MaxResults, 50, input.NextToken, () => validation('Invalid pagination token.'));
  return reply(compact({ Tags: page, NextToken: nextToken }));
}

function deleteTags(ctx: Ctx, input: { ResourceArn?: string; TagKeys?: unknown }) {
  const resourceArn = taggable(ctx, input.ResourceArn);
  const keys = new Set(Array.isArray(input.TagKeys) ? input.TagKeys.map(String) : []);
  const left = (ctx.state.tags.get(resourceArn) ?? []).filter((t) => !keys.has(t.Key));
  if (left.length > 0) ctx.state.tags.set(resourceArn, left);
  else ctx.state.tags.delete(resourceArn);
  return reply();
}

// ---------------------------------------------------------------- behind the service's back

export interface UnmanagedEndpointSpec {
  name: string;
  instanceType?: string;
  instanceCount?: number;
  tags?: Tag[];
}

/**
 * An endpoint created by someone else (another tool, the console, a colleague's script): model,
 * configuration and endpoint, tagged as asked, going through the same lifecycle as any other. Used by
 * the control API (POST /_emulator/endpoints) to put on the platform what the service did not create.
 */
export function createUnmanagedEndpoint(state: EmulatorState, opts: ResolvedOptions, spec: UnmanagedEndpointSpec) {
  const name = checkName(spec.name, 'endpointName');
  const tags = checkTags(spec.tags);
  if (settleEndpoint(state, opts, name)) throw alreadyExists(opts, 'endpoint', name);
  const now = Date.now();
  const suffix = `x${state.nextId++}`;
  const modelName = `${name.slice(0, 50)}-m-${suffix}`;
  const configName = `${name.slice(0, 50)}-c-${suffix}`;
  const model = {
    name: modelName,
    arn: arn(opts, 'model', modelName),
    createdAt: now,
    input: { ModelName: modelName, PrimaryContainer: { Image: 'unmanaged-image', ModelDataUrl: 's3://unmanaged/model.tar.gz' } },
  };
  const variants: ProductionVariant[] = [
    {
      VariantName: 'AllTraffic',
      ModelName: modelName,
      InitialInstanceCount: spec.instanceCount ?? 1,
      InstanceType: spec.instanceType ?? 'ml.g5.xlarge',
    },
  ];
  state.models.set(modelName, model);
  state.endpointConfigs.set(configName, {
    name: configName,
    arn: arn(opts, 'endpoint-config', configName),
    createdAt: now,
    variants,
    input: { EndpointConfigName: configName, ProductionVariants: variants },
  });
  const ep: Endpoint = {
    name,
    arn: arn(opts, 'endpoint', name),
    configName,
    status: 'Creating',
    createdAt: now,
    modifiedAt: now,
    deployed: false,
    pending: { kind: 'create', startedAt: now },
  };
  state.endpoints.set(name, ep);
  setTags(state, ep.arn, tags);
  return { EndpointName: name, EndpointArn: ep.arn, EndpointConfigName: configName, ModelName: modelName };
}

// ---------------------------------------------------------------- model registry

function packageArn(opts: ResolvedOptions, p: ModelPackage): string {
  return arn(opts, 'model-package', p.group ? `${p.group}/${p.version}` : p.name);
}

function packageSummary(opts: ResolvedOptions, p: ModelPackage) {
  return compact({
    ModelPackageName: p.name,
    ModelPackageGroupName: p.group,
    ModelPackageVersion: p.version,
    ModelPackageArn: packageArn(opts, p),
    ModelPackageDescription: p.description,
    CreationTime: epochSeconds(p.createdAt),
    ModelPackageStatus: 'Completed',
    ModelApprovalStatus: p.approval,
  });
}

interface ListPackagesInput {
  ModelPackageGroupName?: string;
  ModelPackageType?: 'Versioned' | 'Unversioned' | 'Both';
  ModelApprovalStatus?: string;
  NameContains?: string;
  SortBy?: 'Name' | 'CreationTime';
  SortOrder?: 'Ascending' | 'Descending';
  MaxResults?: number;
  NextToken?: string;
}

function listModelPackages(ctx: Ctx, input: ListPackagesInput) {
  // The real default is Unversioned unless a group is named: registry versions need asking for.
  const type = input.ModelPackageType ?? (input.ModelPackageGroupName ? 'Versioned' : 'Unversioned');
  const packages = MODEL_PACKAGES.filter((p) => type === 'Both' || (type === 'Versioned') === Boolean(p.group))
    .filter((p) => !input.ModelPackageGroupName || p.group === input.ModelPackageGroupName)
    .filter((p) => !input.ModelApprovalStatus || p.approval === input.ModelApprovalStatus)
    .filter((p) => !input.NameContains || p.name.includes(input.NameContains))
    .sort((a, b) => (input.SortBy === 'Name' ? a.name.localeCompare(b.name) || (a.version ?? 0) - (b.version ?? 0) : a.createdAt - b.createdAt));
  if (input.SortOrder === 'Descending') packages.reverse();
  const { page, nextToken } = paginate(packages, input.MaxResults, 100, input.NextToken, () => validation('Invalid pagination token.'));
  return reply(compact({ ModelPackageSummaryList: page.map((p) => packageSummary(ctx.opts, p)), NextToken: nextToken }));
}

function describeModelPackage(ctx: Ctx, input: { ModelPackageName?: string }) {
  const wanted = input.ModelPackageName ?? '';
  const p = MODEL_PACKAGES.find((candidate) =>
    wanted.startsWith('arn:') ? packageArn(ctx.opts, candidate) === wanted.toLowerCase() : !candidate.group && candidate.name === wanted,
  );
  if (!p) throw validation(`ModelPackage ${wanted} does not exist.`);
  return reply({
    ...packageSummary(ctx.opts, p),
    InferenceSpecification: {
      Containers: [p.container(ctx.opts.region, ctx.opts.accountId)],
      SupportedTransformInstanceTypes: p.transformInstances,
      SupportedRealtimeInferenceInstanceTypes: p.realtimeInstances,
      SupportedContentTypes: p.contentTypes,
      SupportedResponseMIMETypes: p.responseTypes,
    },
    ModelPackageStatusDetails: { ValidationStatuses: [], ImageScanStatuses: [] },
    CertifyForMarketplace: false,
    LastModifiedTime: epochSeconds(p.createdAt),
  });
}

// ---------------------------------------------------------------- public hub

function hubArn(opts: ResolvedOptions): string {
  return `arn:aws:sagemaker:${opts.region}:aws:hub/${PUBLIC_HUB}`;
}

function hubContentArn(opts: ResolvedOptions, m: HubModel): string {
  return `arn:aws:sagemaker:${opts.region}:aws:hub-content/${PUBLIC_HUB}/Model/${m.name}/${m.version}`;
}

function requirePublicHub(value: unknown): void {
  const hub = typeof value === 'string' ? value : '';
  if (hub !== PUBLIC_HUB && !hub.endsWith(`:aws:hub/${PUBLIC_HUB}`)) throw resourceNotFound(`Hub ${hub} does not exist.`);
}

function hubInfo(opts: ResolvedOptions, m: HubModel) {
  return {
    HubContentName: m.name,
    HubContentArn: hubContentArn(opts, m),
    HubContentVersion: m.version,
    HubContentType: 'Model',
    DocumentSchemaVersion: '2.3.0',
    HubContentDisplayName: m.displayName,
    HubContentDescription: m.description,
    HubContentSearchKeywords: m.keywords,
    HubContentStatus: 'Available',
    CreationTime: epochSeconds(m.createdAt),
    OriginalCreationTime: epochSeconds(m.createdAt),
  };
}

interface ListHubInput {
  HubName?: string;
  HubContentType?: string;
  NameContains?: string;
  SortBy?: 'HubContentName' | 'CreationTime' | 'HubContentStatus';
  SortOrder?: 'Ascending' | 'Descending';
  MaxResults?: number;
  NextToken?: string;
}

function listHubContents(ctx: Ctx, input: ListHubInput) {
  requirePublicHub(input.HubName);
  const models = input.HubContentType === 'Model' ? [...HUB_MODELS] : [];
  const matching = models
    .filter((m) => !input.NameContains || m.name.includes(input.NameContains))
    .sort((a, b) => (input.SortBy === 'CreationTime' ? a.createdAt - b.createdAt : a.name.localeCompare(b.name)));
  if (input.SortOrder === 'Descending') matching.reverse();
  const { page, nextToken } = paginate(matching, input.MaxResults, 100, input.NextToken, () => validation('Invalid pagination token.'));
  return reply(compact({ HubContentSummaries: page.map((m) => hubInfo(ctx.opts, m)), NextToken: nextToken }));
}

function describeHubContent(ctx: Ctx, input: { HubName?: string; HubContentType?: string; HubContentName?: string; HubContentVersion?: string }) {
  requirePublicHub(input.HubName);
  const m = HUB_MODELS.find(
    (candidate) =>
      input.HubContentType === 'Model' &&
      candidate.name === input.HubContentName &&
      (!input.HubContentVersion || input.HubContentVersion === '*' || input.HubContentVersion === candidate.version),
  );
  if (!m) throw resourceNotFound(`Hub content with name ${input.HubContentName} does not exist.`);
  return reply({
    ...hubInfo(ctx.opts, m),
    HubName: PUBLIC_HUB,
    HubArn: hubArn(ctx.opts),
    HubContentDocument: JSON.stringify(m.document(ctx.opts.region)),
    HubContentMarkdown: `# ${m.displayName}\n\n${m.description}\n`,
    HubContentDependencies: [],
    LastModifiedTime: epochSeconds(m.createdAt),
  });
}

// ---------------------------------------------------------------- routing

type Handler = (ctx: Ctx, input: any) => Reply;

const OPERATIONS: Record<string, Handler> = {
  ListModelPackages: listModelPackages,
  DescribeModelPackage: describeModelPackage,
  ListHubContents: listHubContents,
  DescribeHubContent: describeHubContent,
  CreateModel: createModel,
  DescribeModel: describeModel,
  DeleteModel: deleteModel,
  CreateEndpointConfig: createEndpointConfig,
  DescribeEndpointConfig: describeEndpointConfig,
  DeleteEndpointConfig: deleteEndpointConfig,
  CreateEndpoint: createEndpoint,
  DescribeEndpoint: describeEndpoint,
  UpdateEndpoint: updateEndpoint,
  UpdateEndpointWeightsAndCapacities: updateEndpointWeightsAndCapacities,
  DeleteEndpoint: deleteEndpoint,
  ListEndpoints: listEndpoints,
  AddTags: addTags,
  ListTags: listTags,
  DeleteTags: deleteTags,
};

/** Fault-matching keys: the resource named, plus the config and models an endpoint runs. */
function faultKeys(ctx: Ctx, input: Record<string, unknown>): string[] {
  const keys = ['EndpointName', 'EndpointConfigName', 'ModelName', 'ModelPackageName', 'HubContentName']
    .map((k) => input[k])
    .filter((v): v is string => typeof v === 'string');
  // Tag operations name their resource by ARN; its last segment is the (lower-cased) name.
  if (typeof input.ResourceArn === 'string') keys.push(input.ResourceArn.split('/').at(-1) as string);
  const configName =
    typeof input.EndpointConfigName === 'string' ? input.EndpointConfigName : ctx.state.endpoints.get(String(input.EndpointName))?.configName;
  const configKeys = configName ? [configName, ...endpointModels(ctx.state, configName)] : [];
  return [...new Set([...keys, ...configKeys])];
}

export const sagemaker: ServiceDef = {
  name: 'sagemaker',
  errorStyle: { kind: 'awsJson', contentType: CONTENT_TYPE, messageKey: 'Message' },
  internalError: () => new EmulatorError(500, 'InternalFailure', 'We encountered an internal error. Please try again.'),
  throttlingError: () => new EmulatorError(400, 'ThrottlingException', 'Rate exceeded'),
  route(ctx): Route | undefined {
    const op = String(ctx.headers['x-amz-target'] ?? '').replace(/^SageMaker\./, '');
    const handler = OPERATIONS[op];
    if (ctx.method !== 'POST' || !handler) return undefined;
    const input = parseJson<Record<string, unknown>>(ctx);
    return {
      op,
      keys: faultKeys(ctx, input),
      canFail: op === 'CreateEndpoint' || op === 'UpdateEndpoint',
      run: async () => handler(ctx, input),
    };
  },
};
