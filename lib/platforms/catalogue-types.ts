/**
 * Catalogue shapes (docs/openapi.yaml ManagedModelEntry, DedicatedModelEntry, HostedModelEntry,
 * ModelInfo): what the platforms' catalogues answer, as lib/platforms/types.ts re-exports them.
 */

export interface ManagedModelEntry {
  modelId: string;
  providerName: string;
  modelArn: string;
  inputModalities: string[];
  outputModalities: string[];
  inferenceTypesSupported: string[];
  customization: string[];
  modelLifecycle: ModelLifecycle;
}

/**
 * Bedrock's modelLifecycle: ACTIVE or LEGACY, and (ISO) when a LEGACY model entered that state, when its
 * public extended access (higher prices) begins and when it ends, each only where Bedrock gives it.
 */
export interface ModelLifecycle {
  status: string;
  legacyTime?: string;
  publicExtendedAccessTime?: string;
  endOfLifeTime?: string;
}

/** How a managed model can be invoked in the service's Region (GET /api/models/managed). */
export interface InvocationWays {
  /** The base id where Bedrock serves the model on demand here; null for a profile-only model. */
  onDemand: string | null;
  /** Its system-defined (cross-Region) profiles, geographic ones first, each with its destination Regions. */
  profiles: { id: string; arn: string; scope: 'geographic' | 'global'; regions: string[] }[];
  /** Whether an application profile can be made for it (copying the on-demand model or a system profile). */
  applicationProfile: boolean;
}

export interface DedicatedModelEntry {
  modelPackageArn: string;
  displayName: string;
  creationTime: string;
  modelApprovalStatus: string;
  inferenceContainers: { image: string; modelDataUrl: string; framework: string; frameworkVersion: string }[];
  supportedContentTypes: string[];
  supportedResponseMIMETypes: string[];
  supportedRealtimeInferenceInstanceTypes: string[];
  supportedTransformInstanceTypes: string[];
}

export interface HostedModelEntry {
  id: string;
  name: string;
  provider: 'hosted';
  tags: string[];
  task: string;
}

/** Model detail (docs/openapi.yaml ModelInfo), the same shape for managed and hosted. */
export interface ModelInfo extends PlatformModelInfo {
  /** The price lines, from the service's own price table (lib/catalogue/pricing.ts). */
  pricing: { inputTokens: string; outputTokens: string };
}

/** What a platform itself says of a model: model detail without the service's prices. */
export interface PlatformModelInfo {
  modelId: string;
  modelName: string;
  providerName: string;
  modelArn: string;
  inputModalities: string[];
  outputModalities: string[];
  responseStreamingSupported: boolean;
  customizationsSupported: string[];
  inferenceTypesSupported: string[];
  modelLifecycle: ModelLifecycle;
}
