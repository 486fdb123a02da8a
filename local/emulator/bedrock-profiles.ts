/**
 * Amazon Bedrock inference profiles: the system-defined (cross-Region) ones every account sees, and
 * the application profiles an account creates to tag its usage. ListInferenceProfiles,
 * GetInferenceProfile, CreateInferenceProfile, DeleteInferenceProfile, TagResource, UntagResource,
 * ListTagsForResource, with the SDK's shapes (restJson1) and the service's error names.
 *
 * A system profile is `<geography>.<modelId>`, offered in a source Region inside its geography (and
 * `global.` in every commercial Region); it routes to the foundation model in each destination
 * Region, so its `models` are one foundation-model ARN per destination Region. An application profile
 * copies the models of the system profile or the single foundation model it was created from.
 */
import { randomBytes } from 'node:crypto';
import { FOUNDATION_MODELS, PROFILE_GEOGRAPHIES, type FoundationModel, type ProfileGeography } from './catalogue';
import { EmulatorError, jsonReply, parseJson, type ApplicationProfile, type Ctx, type Reply, type Tag } from './shared';

/** The model a runtime call reaches, and through which profile (if any). */
export interface Resolved {
  model: FoundationModel;
  profile?: { id: string; type: 'SYSTEM_DEFINED' | 'APPLICATION' };
}

const validation = (message: string) => new EmulatorError(400, 'ValidationException', message);
const notFound = (message: string) => new EmulatorError(404, 'ResourceNotFoundException', message);

export const foundationModelArn = (region: string, modelId: string) => `arn:aws:bedrock:${region}::foundation-model/${modelId}`;
const FOUNDATION_ARN = /^arn:aws[a-z-]*:bedrock:([a-z0-9-]*)::foundation-model\/(.+)$/;
const PROFILE_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:inference-profile\/(.+)$/;
const APPLICATION_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:application-inference-profile\/([a-z0-9]{12})$/;

/** A model by base id or foundation-model ARN. */
export function findFoundationModel(identifier: string): FoundationModel | undefined {
  const id = FOUNDATION_ARN.exec(identifier)?.[2] ?? identifier;
  return FOUNDATION_MODELS.find((m) => m.modelId === id);
}

/** The geographies whose profiles a source Region is offered. */
function geographiesOf(region: string): ProfileGeography[] {
  return (Object.keys(PROFILE_GEOGRAPHIES) as ProfileGeography[]).filter(
    (g) => g === 'global' || (PROFILE_GEOGRAPHIES[g].regions as readonly string[]).includes(region),
  );
}

interface SystemProfile {
  id: string;
  geography: ProfileGeography;
  model: FoundationModel;
}

/** The system profiles offered in the emulator's Region, less those AWS has retired (the control API's /retired-profiles). */
function systemProfiles(ctx: Ctx): SystemProfile[] {
  const offered = geographiesOf(ctx.opts.region);
  return FOUNDATION_MODELS.flatMap((model) =>
    model.profiles
      .filter((g) => offered.includes(g))
      .map((geography) => ({ id: `${geography}.${model.modelId}`, geography, model }))
      .filter((p) => !ctx.state.retiredProfiles.has(p.id)),
  );
}

function findSystemProfile(ctx: Ctx, identifier: string): SystemProfile | undefined {
  const id = PROFILE_ARN.exec(identifier)?.[1] ?? identifier;
  return systemProfiles(ctx).find((p) => p.id === id);
}

function findApplicationProfile(ctx: Ctx, identifier: string): ApplicationProfile | undefined {
  const id = APPLICATION_ARN.exec(identifier)?.[1] ?? identifier;
  return ctx.state.inferenceProfiles.get(id);
}

const systemArn = (ctx: Ctx, id: string) => `arn:aws:bedrock:${ctx.opts.region}:${ctx.opts.accountId}:inference-profile/${id}`;

function systemView(ctx: Ctx, p: SystemProfile) {
  const regions = PROFILE_GEOGRAPHIES[p.geography].regions;
  const label = PROFILE_GEOGRAPHIES[p.geography].label;
  return {
    inferenceProfileName: `${label} ${p.model.providerName} ${p.model.modelName}`,
    description: `Routes requests to ${p.model.providerName} ${p.model.modelName} in ${regions.join(', ')}.`,
    // Fixed, like the catalogue: listings stay deterministic across runs.
    createdAt: '2025-10-01T00:00:00Z',
    updatedAt: '2025-10-01T00:00:00Z',
    inferenceProfileArn: systemArn(ctx, p.id),
    models: regions.map((r) => ({ modelArn: foundationModelArn(r, p.model.modelId) })),
    inferenceProfileId: p.id,
    status: 'ACTIVE',
    type: 'SYSTEM_DEFINED',
  };
}

function applicationView(p: ApplicationProfile) {
  return {
    inferenceProfileName: p.name,
    ...(p.description ? { description: p.description } : {}),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    inferenceProfileArn: p.arn,
    models: p.modelArns.map((modelArn) => ({ modelArn })),
    inferenceProfileId: p.id,
    status: 'ACTIVE',
    type: 'APPLICATION',
  };
}

export async function listInferenceProfiles(ctx: Ctx): Promise<Reply> {
  const type = ctx.query.get('type');
  if (type !== null && type !== 'SYSTEM_DEFINED' && type !== 'APPLICATION') {
    throw validation(
      `1 validation error detected: Value '${type}' at 'typeEquals' failed to satisfy constraint: Member must satisfy enum value set: [SYSTEM_DEFINED, APPLICATION]`,
    );
  }
  const all = [
    ...(type === 'APPLICATION' ? [] : systemProfiles(ctx).map((p) => systemView(ctx, p))),
    ...(type === 'SYSTEM_DEFINED' ? [] : [...ctx.state.inferenceProfiles.values()].map(applicationView)),
  ];
  const max = Number(ctx.query.get('maxResults') ?? 1000);
  if (!Number.isInteger(max) || max < 1 || max > 1000) {
    throw validation(
      `1 validation error detected: Value '${ctx.query.get('maxResults')}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 1000`,
    );
  }
  const start = Number(ctx.query.get('nextToken') ?? 0) || 0;
  const page = all.slice(start, start + max);
  const next = start + max < all.length ? String(start + max) : undefined;
  return jsonReply({ inferenceProfileSummaries: page, ...(next ? { nextToken: next } : {}) });
}

const PROFILE_NOT_FOUND = (identifier: string) => notFound(`Inference profile ${identifier} not found.`);

export async function getInferenceProfile(ctx: Ctx, identifier: string): Promise<Reply> {
  const system = findSystemProfile(ctx, identifier);
  if (system) return jsonReply(systemView(ctx, system));
  const application = findApplicationProfile(ctx, identifier);
  if (application) return jsonReply(applicationView(application));
  throw PROFILE_NOT_FOUND(identifier);
}

interface CreateBody {
  inferenceProfileName?: unknown;
  description?: unknown;
  modelSource?: { copyFrom?: unknown };
  tags?: { key?: unknown; value?: unknown }[];
}

const NAME = /^([0-9a-zA-Z][ _-]?)+$/;

function readTags(tags: unknown, field: string): Tag[] {
  if (tags === undefined) return [];
  if (!Array.isArray(tags)) throw validation(`1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must be a list`);
  if (tags.length > 200)
    throw new EmulatorError(400, 'TooManyTagsException', 'The request contains more tags than can be associated with a resource (200).');
  return tags.map((t: { key?: unknown; value?: unknown }, i) => {
    if (typeof t?.key !== 'string' || t.key.length < 1 || t.key.length > 128 || typeof t.value !== 'string' || t.value.length > 256) {
      throw validation(
        `1 validation error detected: Value at '${field}.${i + 1}.member' failed to satisfy constraint: key 1-128 and value 0-256 characters`,
      );
    }
    return { Key: t.key, Value: t.value };
  });
}

/** Replaces same-key tags, adds the rest (TagResource's semantics). */
function mergeTags(ctx: Ctx, arn: string, tags: Tag[]): void {
  const kept = (ctx.state.tags.get(arn) ?? []).filter((t) => !tags.some((n) => n.Key === t.Key));
  ctx.state.tags.set(arn, [...kept, ...tags]);
}

export async function createInferenceProfile(ctx: Ctx): Promise<Reply> {
  const body = parseJson<CreateBody>(ctx);
  const name = body.inferenceProfileName;
  if (typeof name !== 'string' || name.length < 1 || name.length > 64 || !NAME.test(name)) {
    throw validation(
      `1 validation error detected: Value '${String(name)}' at 'inferenceProfileName' failed to satisfy constraint: Member must satisfy regular expression pattern: ([0-9a-zA-Z][ _-]?)+`,
    );
  }
  if (body.description !== undefined && (typeof body.description !== 'string' || body.description.length > 200)) {
    throw validation(
      "1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 200",
    );
  }
  const source = body.modelSource?.copyFrom;
  if (typeof source !== 'string' || !(FOUNDATION_ARN.test(source) || PROFILE_ARN.test(source))) {
    throw validation(
      "1 validation error detected: Value at 'modelSource.copyFrom' failed to satisfy constraint: Member must be the ARN of a foundation model or of a system-defined inference profile",
    );
  }
  const tags = readTags(body.tags, 'tags');
  if ([...ctx.state.inferenceProfiles.values()].some((p) => p.name === name)) {
    throw new EmulatorError(409, 'ConflictException', `An inference profile with the name ${name} already exists.`);
  }
  let modelArns: string[];
  const system = PROFILE_ARN.test(source) ? findSystemProfile(ctx, source) : undefined;
  if (system) {
    modelArns = PROFILE_GEOGRAPHIES[system.geography].regions.map((r) => foundationModelArn(r, system.model.modelId));
  } else {
    const model = FOUNDATION_ARN.test(source) ? findFoundationModel(source) : undefined;
    if (!model) throw notFound(`The model source ${source} was not found.`);
    modelArns = [foundationModelArn(ctx.opts.region, model.modelId)];
  }
  const id = randomBytes(9)
    .toString('base64')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '0')
    .slice(0, 12);
  const arn = `arn:aws:bedrock:${ctx.opts.region}:${ctx.opts.accountId}:application-inference-profile/${id}`;
  const now = new Date().toISOString();
  ctx.state.inferenceProfiles.set(id, {
    id,
    arn,
    name,
    ...(typeof body.description === 'string' ? { description: body.description } : {}),
    modelArns,
    createdAt: now,
    updatedAt: now,
  });
  if (tags.length > 0) mergeTags(ctx, arn, tags);
  return { ...jsonReply({ inferenceProfileArn: arn, status: 'ACTIVE' }), status: 201 };
}

export async function deleteInferenceProfile(ctx: Ctx, identifier: string): Promise<Reply> {
  const application = findApplicationProfile(ctx, identifier);
  if (!application) {
    if (findSystemProfile(ctx, identifier)) throw validation('System-defined inference profiles cannot be deleted.');
    throw PROFILE_NOT_FOUND(identifier);
  }
  ctx.state.inferenceProfiles.delete(application.id);
  ctx.state.tags.delete(application.arn);
  return jsonReply({});
}

/** Tags live on application profiles here (the rest of Bedrock's taggable resources are not emulated). */
function taggedProfile(ctx: Ctx, arn: unknown): ApplicationProfile {
  const profile = typeof arn === 'string' && APPLICATION_ARN.test(arn) ? findApplicationProfile(ctx, arn) : undefined;
  if (!profile) throw notFound(`The resource ${String(arn)} was not found.`);
  return profile;
}

export async function tagResource(ctx: Ctx): Promise<Reply> {
  const body = parseJson<{ resourceARN?: unknown; tags?: unknown }>(ctx);
  const profile = taggedProfile(ctx, body.resourceARN);
  mergeTags(ctx, profile.arn, readTags(body.tags, 'tags'));
  return jsonReply({});
}

export async function untagResource(ctx: Ctx): Promise<Reply> {
  const body = parseJson<{ resourceARN?: unknown; tagKeys?: unknown }>(ctx);
  const profile = taggedProfile(ctx, body.resourceARN);
  const keys = Array.isArray(body.tagKeys) ? (body.tagKeys as unknown[]) : [];
  ctx.state.tags.set(
    profile.arn,
    (ctx.state.tags.get(profile.arn) ?? []).filter((t) => !keys.includes(t.Key)),
  );
  return jsonReply({});
}

export async function listTagsForResource(ctx: Ctx): Promise<Reply> {
  const body = parseJson<{ resourceARN?: unknown }>(ctx);
  const profile = taggedProfile(ctx, body.resourceARN);
  return jsonReply({ tags: (ctx.state.tags.get(profile.arn) ?? []).map((t) => ({ key: t.Key, value: t.Value })) });
}

const MODEL_NOT_FOUND = 'Could not resolve the foundation model from the provided model identifier.';
const INVALID_IDENTIFIER = 'The provided model identifier is invalid.';

/**
 * What a runtime call (Converse, ConverseStream, InvokeModel) reaches from its modelId: a foundation
 * model offered on demand, or any model through a system profile of this Region or an application
 * profile. A profile-only model's base id is refused with the service's own words.
 */
export function resolveRuntimeTarget(ctx: Ctx, identifier: string): Resolved {
  const application = APPLICATION_ARN.test(identifier) ? findApplicationProfile(ctx, identifier) : undefined;
  if (application) {
    const model = findFoundationModel(application.modelArns[0] ?? '');
    if (model) return { model, profile: { id: application.arn, type: 'APPLICATION' } };
  }
  if (APPLICATION_ARN.test(identifier)) throw validation(INVALID_IDENTIFIER);
  const model = findFoundationModel(identifier);
  if (model) {
    if (!model.inferenceTypesSupported.includes('ON_DEMAND')) {
      throw validation(
        `Invocation of model ID ${model.modelId} with on-demand throughput isn't supported. ` +
          'Retry your request with the ID or ARN of an inference profile that contains this model.',
      );
    }
    return { model };
  }
  const system = findSystemProfile(ctx, identifier);
  if (system) return { model: system.model, profile: { id: system.id, type: 'SYSTEM_DEFINED' } };
  // A profile of another geography, or of a model without one: the service cannot parse it as a target.
  if (identifier.replace(PROFILE_ARN, '$1').split('.').length > 2) throw validation(INVALID_IDENTIFIER);
  throw new EmulatorError(404, 'ResourceNotFoundException', MODEL_NOT_FOUND);
}
