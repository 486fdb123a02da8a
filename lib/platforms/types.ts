/**
 * The one view the rest of the service has of the three model platforms. Implementations, one SDK
 * client per module so that a function bundles only the clients it calls:
 *
 * - managed: managed.ts (Bedrock: catalogue), managed-chat.ts (Bedrock runtime: Converse);
 * - dedicated: dedicated.ts (SageMaker: catalogue, deployment, endpoint state), dedicated-chat.ts
 *   (SageMaker runtime: InvokeEndpoint), dedicated-metrics.ts (CloudWatch);
 * - hosted: hosted.ts (OpenAI-compatible HTTP API, fetch only).
 *
 * lib/platforms/index.ts hands out the chat side of all three.
 *
 * Every failure of a platform call surfaces as an UpstreamError (lib/errors.ts) whose message names
 * the platform and says what happened (throttled, timed out, refused credentials, failed); an endpoint
 * whose contract reports every platform failure one way says so in its options (`platformFailures`).
 * Nothing else of the upstream's internals reaches a client.
 */
import type { EndpointStatus } from '../../core/vocabulary';

export { PLATFORMS, type EndpointStatus, type PlatformName } from '../../core/vocabulary';

// ---------------------------------------------------------------------------------------------
// Chat, common to all three
// ---------------------------------------------------------------------------------------------

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  /** managed and hosted: the model id; dedicated: the endpoint name. */
  target: string;
  system?: string;
  /** Oldest first; the last entry is the new user message. */
  messages: ChatTurn[];
  maxTokens?: number;
  /** Sampling, as the OpenAI API defines them (the gateway passes a client's choices through). */
  temperature?: number;
  topP?: number;
  stop?: string[];
}

export interface ChatReply {
  content: string;
  tokensIn: number;
  tokensOut: number;
  /** The platform's own latency where it reports one (Bedrock metrics.latencyMs), else measured. */
  latencyMs: number;
  /** The model that answered, as the platform names it. */
  modelId: string;
  /** Why the model stopped, in OpenAI's words: 'length' when maxTokens cut it short. */
  finishReason?: 'stop' | 'length';
}

/**
 * One event of a streamed reply, in the order a platform sends them: text deltas, then (at the end)
 * why it stopped and the usage the platform counted. A platform that reports no usage sends none: the
 * caller estimates it.
 */
export type ChatStreamEvent =
  | { kind: 'text'; text: string }
  | { kind: 'stop'; finishReason: 'stop' | 'length' }
  | { kind: 'usage'; tokensIn: number; tokensOut: number; latencyMs?: number; modelId?: string };

export interface ChatCapable {
  chat(request: ChatRequest): Promise<ChatReply>;
  /**
   * The reply as it is generated. A failure before the first event throws (an UpstreamError) from the
   * first `next()`; one after it throws from a later `next()`, also an UpstreamError. Aborting `signal`
   * (or returning the iterator early) stops the upstream call.
   */
  chatStream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatStreamEvent>;
}

// ---------------------------------------------------------------------------------------------
// Catalogue shapes (spec 2.6)
// ---------------------------------------------------------------------------------------------

export interface ManagedModelEntry {
  modelId: string;
  providerName: string;
  modelArn: string;
  inputModalities: string[];
  outputModalities: string[];
  inferenceTypesSupported: string[];
  customization: string[];
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

/** Model detail (spec 2.6 modelInfo), the same shape for managed and hosted. */
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
  modelLifecycle: { status: string };
}

// ---------------------------------------------------------------------------------------------
// Dedicated endpoints (the only platform with infrastructure)
// ---------------------------------------------------------------------------------------------

export interface EndpointDescription {
  name: string;
  arn: string;
  status: EndpointStatus;
  failureReason?: string;
  configName: string;
  instanceType?: string;
  instanceCount?: number;
  /** The production variants serving (CloudWatch publishes invocation metrics per variant). */
  variantNames: string[];
  createdAt: string;
  lastModifiedAt: string;
}

/** One entry of ListEndpoints: what the platform says of every endpoint without describing it. */
export interface EndpointSummary {
  name: string;
  arn: string;
  status: EndpointStatus;
  createdAt: string;
  lastModifiedAt: string;
}

export interface DedicatedDeploySpec {
  /** The tracked resource this endpoint is for: tagged on everything created, so orphans can be found. */
  resourceId: string;
  endpointName: string;
  instanceType: string;
  instanceCount: number;
  executionRoleArn: string;
  subnetIds: string[];
  securityGroupIds: string[];
  /** Either a model package, or an inference image (with optional model data). */
  modelPackageArn?: string;
  inferenceImage?: string;
  modelDataUrl?: string;
  /**
   * Public-hub (JumpStart) models that are gated need their licence accepted explicitly; only a
   * caller that has shown the licence to the user sets this. Ignored for other models.
   */
  acceptEula?: boolean;
}

export interface EndpointMetrics {
  response_time_ms: number;
  throughput_per_minute: number;
  error_rate_percent: number;
  cpu_utilization: number;
  memory_utilization: number;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** A request's limits and sampling in the OpenAI wire names (the hosted API and the dedicated containers speak them). */
export function openAiSampling(request: ChatRequest): Record<string, unknown> {
  const fields = { max_tokens: request.maxTokens, temperature: request.temperature, top_p: request.topP, stop: request.stop };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

// ---------------------------------------------------------------------------------------------
// The three platforms' control sides (chat is ChatCapable above)
// ---------------------------------------------------------------------------------------------

/** The production variant name of every endpoint this service creates. */
export const VARIANT_NAME = 'AllTraffic';

export interface ManagedPlatform {
  readonly region: string;
  listModels(): Promise<ManagedModelEntry[]>;
  /** undefined when the platform does not know the model (ResourceNotFoundException). */
  getModel(modelId: string): Promise<PlatformModelInfo | undefined>;
  /** The Converse URL of a model, e.g. https://bedrock-runtime.<region>.amazonaws.com/model/<id>/converse */
  invokeUrl(modelId: string): string;
}

export type DedicatedSource = 'public' | 'account' | 'all';

/** The dedicated platform's catalogue: the public model hub and the account's model registry. */
export interface DedicatedCatalogue {
  readonly region: string;
  listModels(options: { search?: string; max: number; source: DedicatedSource }): Promise<DedicatedModelEntry[]>;
  /** The catalogue entry of a model package ARN (account or public hub); undefined when unknown. */
  describeModelPackage(modelPackageArn: string): Promise<DedicatedModelEntry | undefined>;
}

/** The dedicated platform's endpoints: what start, stop, restart and delete mean there. */
export interface DedicatedEndpoints {
  readonly region: string;
  /**
   * Creates the model, the endpoint configuration and the endpoint, and returns as soon as the
   * endpoint is Creating. If a step fails, what was created before it is deleted again.
   */
  deploy(spec: DedicatedDeploySpec): Promise<EndpointDescription>;
  /** undefined when the endpoint does not exist (deleted, or never created). */
  describe(endpointName: string): Promise<EndpointDescription | undefined>;
  /** UpdateEndpoint onto a fresh copy of the current endpoint configuration: Updating, then InService. */
  restart(endpointName: string): Promise<EndpointDescription>;
  /** DeleteEndpoint (then its configuration and model): Deleting, then gone. */
  delete(endpointName: string): Promise<void>;
  /**
   * DeleteEndpoint only: the endpoint (what bills) goes, its configuration and model stay so that
   * `recreate` can bring it back. A guardrail's stop.
   */
  stop(endpointName: string): Promise<void>;
  /** CreateEndpoint from a kept configuration, tagged for the resource: Creating, then InService. */
  recreate(endpointName: string, configName: string, resourceId: string): Promise<EndpointDescription>;
  /** Deletes a kept configuration and its models (what a stopped endpoint leaves), best effort. */
  deleteRetained(configName: string): Promise<void>;
  /** One page of ListEndpoints (up to 100), newest first. */
  listEndpoints(nextToken?: string): Promise<{ endpoints: EndpointSummary[]; nextToken?: string }>;
  /** An endpoint's tags as key -> value; undefined when the endpoint no longer exists. */
  tagsOf(endpointArn: string): Promise<Record<string, string> | undefined>;
  /** Adds (or overwrites) tags on an endpoint. */
  tag(endpointArn: string, tags: Record<string, string>): Promise<void>;
  /** The InvokeEndpoint URL of an endpoint. */
  endpointUrl(endpointName: string): string;
}

/** One endpoint whose invocations are counted: every variant of it (CloudWatch publishes per variant). */
export interface InvocationTarget {
  key: string;
  endpointName: string;
  variantNames: string[];
}

export interface DedicatedMetrics {
  /** CloudWatch figures over the last `windowMinutes` (default 15). */
  metrics(endpointName: string, windowMinutes?: number): Promise<EndpointMetrics>;
  /**
   * AWS/SageMaker Invocations of many endpoints over the last `windowMinutes` before `now`, batched
   * into as few GetMetricData calls as CloudWatch allows. Per target key: the number of invocations
   * and the end of the latest minute that had any (undefined when none).
   */
  invocations(
    targets: InvocationTarget[],
    windowMinutes: number,
    now: Date,
  ): Promise<{ counts: Map<string, { count: number; lastActiveAt?: string }>; calls: number }>;
}

export interface HostedPlatform extends ChatCapable {
  readonly configured: boolean;
  readonly baseUrl: string;
  /** `raw` is the upstream response as received, for `debug=1`. */
  listModels(): Promise<{ models: HostedModelEntry[]; raw: unknown }>;
  getModel(modelId: string): Promise<PlatformModelInfo | undefined>;
  /** Throws UpstreamError (with upstreamStatus) when the API does not answer well. */
  checkConnectivity(modelId: string): Promise<{ endpoint: string }>;
}
