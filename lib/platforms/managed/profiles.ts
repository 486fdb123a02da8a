/**
 * Amazon Bedrock inference profiles: how a model can be invoked besides its base id.
 *
 * - System-defined (cross-Region) profiles, `us.<modelId>`, `eu.…`, `apac.…`, `global.<modelId>`:
 *   Bedrock routes each call to the model in one of the profile's destination Regions. Most current
 *   models (Claude 4.x, Llama 4, …) are offered only this way; their base id is refused.
 * - Application profiles: created here (CreateInferenceProfile, copying a system profile or one
 *   foundation model) so that their cost allocation tags split the AWS bill by resource and team.
 *
 * A profile's `models` are foundation-model ARNs, one per destination Region: the Regions come from there.
 */
import {
  BedrockClient,
  CreateInferenceProfileCommand,
  DeleteInferenceProfileCommand,
  GetInferenceProfileCommand,
  ListInferenceProfilesCommand,
  ListTagsForResourceCommand,
  type InferenceProfileSummary,
} from '@aws-sdk/client-bedrock';
import { http1ClientConfig, resolveAwsOptions } from '../clients';
import { errorName, guard, toUpstreamError, unreadable } from '../errors';
import { traced } from '#tracing';

const PLATFORM = 'managed' as const;

type InferenceProfileType = 'SYSTEM_DEFINED' | 'APPLICATION';

/** A profile as the service shows and records it. */
export interface InferenceProfileView {
  id: string;
  arn: string;
  type: InferenceProfileType;
  /** Destination Regions: where Bedrock may run a call made through the profile. */
  regions: string[];
  /** The foundation model behind it (its base id). */
  modelId: string;
}

const FOUNDATION_ARN = /^arn:aws[a-z-]*:bedrock:([a-z0-9-]*)::foundation-model\/(.+)$/;

function viewOf(
  p: Pick<InferenceProfileSummary, 'inferenceProfileId' | 'inferenceProfileArn' | 'type' | 'models'>,
): InferenceProfileView | undefined {
  const models = (p.models ?? []).map((m) => FOUNDATION_ARN.exec(m.modelArn ?? '')).filter((m) => m !== null);
  const modelId = models[0]?.[2];
  if (!p.inferenceProfileId || !p.inferenceProfileArn || !modelId) return undefined;
  return {
    id: p.inferenceProfileId,
    arn: p.inferenceProfileArn,
    type: p.type === 'APPLICATION' ? 'APPLICATION' : 'SYSTEM_DEFINED',
    regions: [...new Set(models.map((m) => m[1] as string))],
    modelId,
  };
}

const control = /* @__PURE__ */ traced(new BedrockClient(http1ClientConfig(resolveAwsOptions())));

/** An application profile as listed: when it was made and its name, which the orphan list shows. */
export interface ListedApplicationProfile extends InferenceProfileView {
  name: string;
  createdAt: string | null;
}

/** Every profile of one type the service's Region lists (all pages). */
async function listProfiles(typeEquals: InferenceProfileType): Promise<ListedApplicationProfile[]> {
  const views: ListedApplicationProfile[] = [];
  let nextToken: string | undefined;
  do {
    const out = await guard(PLATFORM, () => control.send(new ListInferenceProfilesCommand({ typeEquals, maxResults: 1000, nextToken })));
    if (!Array.isArray(out.inferenceProfileSummaries)) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    for (const summary of out.inferenceProfileSummaries) {
      const view = viewOf(summary);
      if (view) views.push({ ...view, name: summary.inferenceProfileName ?? view.id, createdAt: summary.createdAt?.toISOString() ?? null });
    }
    nextToken = out.nextToken;
  } while (nextToken);
  return views;
}

/** Every system-defined profile offered in the service's Region. */
export const listSystemProfiles = (): Promise<InferenceProfileView[]> => listProfiles('SYSTEM_DEFINED');

/** Every application profile of the account in the service's Region (the reconciler's orphan search). */
export const listApplicationProfiles = (): Promise<ListedApplicationProfile[]> => listProfiles('APPLICATION');

/** An application profile's tags (ListTagsForResource); undefined when the profile is gone. */
export async function profileTags(arn: string): Promise<Record<string, string> | undefined> {
  try {
    const out = await control.send(new ListTagsForResourceCommand({ resourceARN: arn }));
    return Object.fromEntries((out.tags ?? []).map((t) => [t.key ?? '', t.value ?? '']));
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException') return undefined;
    throw toUpstreamError(PLATFORM, err);
  }
}

export const isGlobalProfile = (p: Pick<InferenceProfileView, 'id'>) => p.id.startsWith('global.');

/** The system profiles of the service's Region by the model they serve, geographic ones before the global one. */
export async function systemProfilesByModel(): Promise<Map<string, InferenceProfileView[]>> {
  const byModel = new Map<string, InferenceProfileView[]>();
  for (const profile of await listSystemProfiles()) byModel.set(profile.modelId, [...(byModel.get(profile.modelId) ?? []), profile]);
  for (const list of byModel.values()) list.sort((a, b) => Number(isGlobalProfile(a)) - Number(isGlobalProfile(b)));
  return byModel;
}

/** One profile by id or ARN; undefined when Bedrock does not know it (deleted, or never there). */
export async function getProfile(identifier: string): Promise<InferenceProfileView | undefined> {
  try {
    const out = await control.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: identifier }));
    const view = viewOf(out);
    if (!view) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    return view;
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException') return undefined;
    throw toUpstreamError(PLATFORM, err);
  }
}

/** Creates an application profile copying `copyFrom` (a system profile's or a foundation model's ARN). */
export async function createApplicationProfile(input: {
  name: string;
  description: string;
  copyFrom: string;
  tags: Record<string, string>;
}): Promise<InferenceProfileView> {
  const created = await guard(PLATFORM, () =>
    control.send(
      new CreateInferenceProfileCommand({
        inferenceProfileName: input.name,
        description: input.description,
        modelSource: { copyFrom: input.copyFrom },
        tags: Object.entries(input.tags).map(([key, value]) => ({ key, value })),
      }),
    ),
  );
  if (!created.inferenceProfileArn) throw unreadable(PLATFORM, created.$metadata.httpStatusCode);
  const view = await getProfile(created.inferenceProfileArn);
  if (!view) throw unreadable(PLATFORM, 404);
  return view;
}

/** Deletes an application profile; one already gone counts as deleted. */
export async function deleteApplicationProfile(arn: string): Promise<void> {
  try {
    await control.send(new DeleteInferenceProfileCommand({ inferenceProfileIdentifier: arn }));
  } catch (err) {
    if (errorName(err) !== 'ResourceNotFoundException') throw toUpstreamError(PLATFORM, err);
  }
}
