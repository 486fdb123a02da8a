/**
 * What a tracked resource's model can do (ModelCapabilities), for the metered call to ask before it
 * calls the platform: a refused feature is a 400 without a platform call.
 *
 * Each deploy records the capabilities on the resource (tables/resources.ts `capabilities`), from what
 * the platform's catalogue says at that moment:
 * - managed: the modalities (input IMAGE; output TEXT or EMBEDDING) and streaming from Bedrock, tool use
 *   from the Converse family table (managed/features.ts);
 * - hosted: the model id (hosted/models.ts: embedding models, vision models);
 * - dedicated: the container (dedicated/features.ts: TEI embeds, TGI/LMI chat with tools and JSON).
 * A resource tracked before capabilities were recorded has none stored: they are derived from what the
 * resource itself says (the model id; the inference image), with no platform call.
 *
 * Plain functions of plain data: no client is bundled by asking.
 */
import { dedicatedCapabilities } from './dedicated/features';
import { hostedCapabilities } from './hosted/models';
import {
  cachingOf,
  managedBetas,
  managedCapabilitiesOfId,
  managedDocuments,
  managedMaxOutputTokens,
  managedReasoning,
  managedTopK,
  serviceTiersOf,
  type CachingFacts,
  type ReasoningStyle,
} from './managed/features';
import type { CacheTtl, ModelCapabilities, PlatformName, ServiceTier } from './types';

export interface ResourceModel {
  type: PlatformName;
  /** managed, hosted: the model id; dedicated: the model package or image deployed. */
  model_id: string;
  inference_image?: string | null;
  /** What the deploy recorded; null or absent for resources tracked before. */
  capabilities?: ModelCapabilities | null;
}

/** The capabilities of a tracked resource: those recorded at deploy, else derived from the resource. */
export function capabilitiesOf(resource: ResourceModel): ModelCapabilities {
  if (resource.capabilities) return resource.capabilities;
  switch (resource.type) {
    case 'managed':
      return managedCapabilitiesOfId(resource.model_id);
    case 'hosted':
      return hostedCapabilities(resource.model_id);
    case 'dedicated':
      return dedicatedCapabilities({ image: resource.inference_image ?? undefined, names: [resource.model_id] });
  }
}

/**
 * The most output tokens the resource's model writes in one call, where its platform's adapter knows
 * it (managed: the family table); undefined where it does not (hosted, dedicated: what a container
 * allows is its own configuration).
 */
export function maxOutputTokensOf(resource: ResourceModel): number | undefined {
  return resource.type === 'managed' ? managedMaxOutputTokens(resource.model_id) : undefined;
}

/** The processing tiers the resource's model offers: Bedrock's per model; every other platform serves its one default. */
export function serviceTiersOfResource(resource: ResourceModel): readonly ServiceTier[] {
  return resource.type === 'managed' ? serviceTiersOf(resource.model_id) : ['default'];
}

/**
 * How long the resource's model keeps a prompt-cache checkpoint (the TTLs it accepts); empty where it
 * caches nothing, and a checkpoint asked for changes nothing (Bedrock's family table; no other
 * platform's adapter caches).
 */
export function cacheTtlsOfResource(resource: ResourceModel): readonly CacheTtl[] {
  return promptCachingOf(resource)?.ttls ?? [];
}

/**
 * How the resource's model caches prompts: the fewest tokens a checkpoint's prefix must hold, its TTLs
 * and the request fields that take a checkpoint; undefined where it caches nothing (only Bedrock's
 * family table says it today).
 */
export function promptCachingOf(resource: ResourceModel): CachingFacts | undefined {
  return resource.type === 'managed' ? cachingOf(resource.model_id) : undefined;
}

export type { ReasoningStyle } from './managed/features';

/**
 * How the resource's model reasons (managed/features.ts), undefined where it does not: a request for
 * reasoning is then refused (model_not_capable). Only Bedrock's catalogue says it today: a hosted or
 * dedicated model's reasoning is its server's business, not a setting this service can pass.
 */
export function reasoningOf(resource: ResourceModel): ReasoningStyle | undefined {
  return resource.type === 'managed' ? managedReasoning(resource.model_id) : undefined;
}

/** The provider betas the resource's model takes on its platform (Claude on Bedrock: anthropic_beta); none elsewhere. */
export function betasOf(resource: ResourceModel): readonly string[] {
  return resource.type === 'managed' ? managedBetas(resource.model_id) : [];
}

/** Whether the resource's model samples with top_k. */
export function takesTopK(resource: ResourceModel): boolean {
  return resource.type === 'managed' && managedTopK(resource.model_id);
}

/** Whether the resource's model reads documents (PDF, text): Bedrock's models that take Converse document blocks. */
export function takesDocuments(resource: ResourceModel): boolean {
  return resource.type === 'managed' && managedDocuments(resource.model_id);
}
