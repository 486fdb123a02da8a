/**
 * The one view the rest of the service has of the model platforms. Each platform is a folder:
 *
 * - managed/: traits.ts, catalogue.ts (Bedrock), chat.ts (Bedrock runtime: Converse);
 * - dedicated/: traits.ts, catalogue.ts and endpoints.ts (SageMaker: the model hub and registry;
 *   deployment and the endpoint's lifecycle), chat.ts (SageMaker runtime), metrics.ts (CloudWatch);
 * - hosted/: traits.ts, api.ts (the OpenAI-compatible HTTP API, fetch only: catalogue and chat).
 *
 * One SDK client per module, so that a function bundles only the clients it calls. A platform's
 * traits (how it bills, what its models can do, whether it runs endpoints with a lifecycle, what the
 * platform calls a resource) are plain data in traits.ts, with no client: domain code asks them
 * (registry.ts `traitsOf`) instead of branching on the platform's name. docs/architecture.md has the
 * checklist for adding a platform.
 *
 * Every failure of a platform call surfaces as an UpstreamError (lib/errors.ts) whose message names
 * the platform and says what happened (throttled, timed out, refused credentials, failed); an endpoint
 * whose contract reports every platform failure one way says so in its options (`platformFailures`).
 * Nothing else of the upstream's internals reaches a client.
 */
import type { EndpointStatus, ModelCapabilities, PlatformName } from '../../core/vocabulary';

export { PLATFORMS, type EndpointStatus, type ModelCapabilities, type PlatformName } from '../../core/vocabulary';

// ---------------------------------------------------------------------------------------------
// What a platform is: its traits
// ---------------------------------------------------------------------------------------------

export interface PlatformTraits {
  readonly name: PlatformName;
  /** What people call it (the console's tabs and lists), and one sentence on what a resource there is and costs. */
  readonly label: string;
  readonly description: string;
  /**
   * How calls on it are paid: `per-token` (the price table's per-1K-token prices: a call has a cost,
   * reserved against budgets and recorded) or `per-hour` (the endpoint's instances bill by the hour
   * whether called or not: a call costs nothing more).
   */
  readonly billing: 'per-token' | 'per-hour';
  /**
   * `endpoint`: the service runs infrastructure there, with a lifecycle (Creating, InService, …;
   * start, restart, delete, guardrails, metrics, reconciliation) read from the platform. `always-on`:
   * the platform runs the model; a tracked resource is a name for it, always InService, and the only
   * control is to stop tracking it.
   */
  readonly lifecycle: 'endpoint' | 'always-on';
  /** What its models may do at most; a model's catalogue entry may say less. */
  readonly capabilities: ModelCapabilities;
  /**
   * Whether its models have processing tiers priced apart (Bedrock's Flex and Priority): its price
   * entries then take `service_tiers`, and a call may ask for a tier its model offers.
   */
  readonly serviceTiers: boolean;
  /** The name the platform knows a tracked resource by (managed, hosted: the model id; dedicated: the endpoint name). */
  target(resource: { endpoint_name: string; model_id: string; inference_profile?: { id: string; arn: string; type: string } | null }): string;
  /** Endpoint names it accepts, and the rule in words for a refusal. */
  readonly names: { pattern: RegExp; rule: string };
}

/** A name the service only tracks (the platform never sees it): 1 to 63 letters, digits and hyphens. */
export const TRACKED_NAME = /^[a-zA-Z0-9-]{1,63}$/;

// ---------------------------------------------------------------------------------------------
// A model call, common to every platform
// ---------------------------------------------------------------------------------------------

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** How long a prompt-cache entry lives once written or read (Bedrock's CacheTTL, Anthropic's cache_control ttl). */
export type CacheTtl = '5m' | '1h';

/**
 * Bedrock's processing tiers (Converse `serviceTier.type`): `default` is Standard, `flex` trades
 * latency for a discount, `priority` buys latency at a premium (docs/pricing.md has the prices).
 */
export type ServiceTier = 'default' | 'flex' | 'priority';

/**
 * A piece of a message: text, an image as base64 bytes with their media type, or a document. `cache` asks for a
 * prompt-cache checkpoint right after the piece (the prefix up to it is cached for that long), where
 * the model caches; elsewhere it changes nothing.
 */
export type ContentPart =
  | { type: 'text'; text: string; cache?: CacheTtl }
  | { type: 'image'; mediaType: ImageMediaType; data: string; cache?: CacheTtl }
  | { type: 'document'; format: DocumentFormat; name: string; data: string; cache?: CacheTtl };

/**
 * The documents a model may read (Converse DocumentBlock `format`): a PDF, or plain text. `name` is
 * the one Converse requires (lib/dialects/documents.ts makes it from the client's title), `data` the
 * base64 bytes.
 */
export type DocumentFormat = 'pdf' | 'txt';

/** A piece of the system prompt: text, with an optional cache checkpoint after it. */
export type SystemPart = Extract<ContentPart, { type: 'text' }>;

/** The system prompt: one text, or its pieces where a checkpoint sits between them. */
export type SystemPrompt = string | SystemPart[];

/** A function the model may call: its name, what it does, and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** A JSON Schema of type object. */
  parameters: Record<string, unknown>;
  /** The arguments must validate against the schema exactly (OpenAI's strict mode). */
  strict?: boolean;
  /** A prompt-cache checkpoint after this tool's definition (the tools up to it are cached). */
  cache?: CacheTtl;
}

/** A call the model made: an id (the platform's, or one made up where it gives none), the tool and its arguments as JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Whether the model may, must, or must not call a tool, or must call one named tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** An answer that is JSON: any object, or one valid against a schema. */
export type OutputFormat = { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/**
 * One message of a conversation with a model. Tool results are messages of their own (role `tool`,
 * one per call answered), as OpenAI sends them; adapters whose platform puts them inside a user
 * message (Converse, Anthropic) merge consecutive ones.
 */
export type ChatTurn =
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; cache?: CacheTtl; reasoning?: ReasoningBlock[] }
  | { role: 'tool'; toolCallId: string; content: string | ContentPart[]; isError?: boolean; cache?: CacheTtl };

export interface ChatRequest {
  /** The name the platform knows the model by (PlatformTraits.target). */
  target: string;
  /** The model behind `target` where they differ (a managed resource called through an application profile's ARN). */
  model?: string;
  system?: SystemPrompt;
  /** Oldest first. */
  messages: ChatTurn[];
  maxTokens?: number;
  /** Sampling, as the OpenAI API defines them (the gateway passes a client's choices through). */
  temperature?: number;
  topP?: number;
  stop?: string[];
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  /** Whether the model may make several tool calls in one answer (default: the platform's). */
  parallelToolCalls?: boolean;
  outputFormat?: OutputFormat;
  /** The processing tier asked for (absent: the platform's default, Standard). */
  serviceTier?: ServiceTier;
  /** Reasoning asked for (absent: none, or what the model does by itself). */
  reasoning?: ReasoningRequest;
  /** Sampling from the k likeliest tokens only (Anthropic's top_k), where the model takes it. */
  topK?: number;
  /** Provider betas the model takes on its platform (Anthropic's anthropic-beta), already filtered to those. */
  betas?: string[];
  /** Another target stands behind this call (a route's): a throttled attempt fails at once instead of being retried by the client. */
  failFastOnThrottling?: boolean;
}

/**
 * The prompt tokens that went through the prompt cache, as Bedrock counts them (TokenUsage
 * cacheReadInputTokens, and cacheWriteInputTokens split by TTL in cacheDetails). They are not part
 * of the plain input tokens: a call's prompt is its input plus these.
 */
export interface CacheTokens {
  read: number;
  write5m: number;
  write1h: number;
}

/**
 * A model's reasoning before (or, interleaved, between) its answer's pieces: the text with the
 * signature that proves the model wrote it, or reasoning the provider encrypted (`redacted`, opaque
 * base64). A later turn sends it back unchanged, or the platform refuses the conversation.
 */
export type ReasoningBlock = { type: 'thinking'; text: string; signature: string } | { type: 'redacted'; data: string };

/**
 * How much the model may reason before it answers, for a model that reasons (ModelCapabilities are
 * silent on it: lib/platforms/capabilities.ts `reasoningOf`): a token budget (Anthropic's
 * budget_tokens), an effort (OpenAI's reasoning_effort; a budget where the model takes one), or
 * `adaptive` (the model decides, where it can). `interleaved`: it may reason again between tool calls.
 */
export interface ReasoningRequest {
  budgetTokens?: number;
  effort?: 'low' | 'medium' | 'high';
  adaptive?: boolean;
  interleaved?: boolean;
}

/** The thinking budget an effort stands for where a model takes a budget (as LiteLLM and OpenRouter map it, doubled per step). */
/** Claude's smallest thinking budget (Anthropic's rule, which Bedrock holds Anthropic's models to). */
export const MIN_THINKING_BUDGET = 1_024;

export const EFFORT_BUDGET = { low: 1_024, medium: 4_096, high: 16_384 } as const;

/**
 * The reasoning tokens a request may spend beyond its answer's bound, for the budget hold: its budget,
 * or its effort's; 0 when it asks for none (adaptive: the answer's bound, which the model keeps to).
 */
export function reasoningBound(request: Pick<ChatRequest, 'reasoning'>): number {
  const reasoning = request.reasoning;
  if (!reasoning || reasoning.adaptive) return 0;
  return reasoning.budgetTokens ?? EFFORT_BUDGET[reasoning.effort ?? 'medium'];
}

/** Why the model stopped, in OpenAI's words. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatReply {
  /** The answer's text ('' when it only called tools). */
  content: string;
  toolCalls?: ToolCall[];
  tokensIn: number;
  tokensOut: number;
  /** The platform's own latency where it reports one (Bedrock metrics.latencyMs), else measured. */
  latencyMs: number;
  /** The model that answered, as the platform names it. */
  modelId: string;
  finishReason?: FinishReason;
  /** What the prompt cache served and stored (absent: nothing). */
  cache?: CacheTokens;
  /** The tier that served the call, as the platform reports it (absent: it does not say). */
  serviceTier?: ServiceTier;
  /** The model's reasoning, in order (absent: none). Its tokens are among tokensOut. */
  reasoning?: ReasoningBlock[];
}

/**
 * One event of a streamed reply, in the order a platform sends them: reasoning (its text in pieces,
 * closed by its signature; or a redacted block whole), text deltas and tool calls (a
 * `tool_call` opens call number `index`, `tool_arguments` add pieces of its JSON arguments), then (at
 * the end) why it stopped and the usage the platform counted. A platform that reports no usage sends
 * none: the caller estimates it.
 */
export type ChatStreamEvent =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'reasoning_signature'; signature: string }
  | { kind: 'reasoning_redacted'; data: string }
  | { kind: 'tool_call'; index: number; id: string; name: string }
  | { kind: 'tool_arguments'; index: number; text: string }
  | { kind: 'stop'; finishReason: FinishReason }
  | { kind: 'usage'; tokensIn: number; tokensOut: number; latencyMs?: number; modelId?: string; cache?: CacheTokens; serviceTier?: ServiceTier };

export interface ChatCapable {
  chat(request: ChatRequest): Promise<ChatReply>;
  /**
   * The reply as it is generated. A failure before the first event throws (an UpstreamError) from the
   * first `next()`; one after it throws from a later `next()`, also an UpstreamError. Aborting `signal`
   * (or returning the iterator early) stops the upstream call.
   */
  chatStream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatStreamEvent>;
  /** The request's input tokens as the platform counts them, free of charge; undefined where the model has no counting. */
  countTokens?(request: ChatRequest): Promise<number | undefined>;
}

export interface EmbeddingRequest {
  target: string;
  /** The model behind `target` where they differ (see ChatRequest.model). */
  model?: string;
  /** One or more texts (an adapter splits them into as many platform calls as the model's limits need). */
  inputs: string[];
  /** The vectors' size, for models that offer several (Titan v2: 256, 512, 1024); refused (BadRequest, param `dimensions`) where the model has no such size. */
  dimensions?: number;
  /**
   * What the texts are for, where the model embeds queries and documents differently (Cohere's
   * input_type search_query / search_document): default `document`. OpenAI's API has no such field.
   */
  inputType?: 'query' | 'document';
  /** As ChatRequest.failFastOnThrottling. */
  failFastOnThrottling?: boolean;
}

export interface EmbeddingReply {
  /** One vector per input, in the inputs' order. */
  vectors: number[][];
  tokensIn: number;
  latencyMs: number;
  modelId: string;
}

export interface EmbeddingCapable {
  embed(request: EmbeddingRequest): Promise<EmbeddingReply>;
}

/** The system prompt as one text (its pieces joined by a blank line). */
export function systemText(system: SystemPrompt | undefined): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((p) => p.text).join('\n\n');
}

/** The text of a message's content (images and documents left out). */
export function textOf(content: string | ContentPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** The documents of a message's content. */
export const documentsOf = (content: string | ContentPart[]): Extract<ContentPart, { type: 'document' }>[] =>
  typeof content === 'string' ? [] : content.filter((p) => p.type === 'document');

/** Anthropic's limit on checkpoints a request (Bedrock's too): a fifth is refused, as Anthropic refuses it. */
export const MAX_CACHE_CHECKPOINTS = 4;

/**
 * The prompt-cache checkpoints a request asks for: on system pieces, on turns, on the parts of
 * non-assistant turns and on tools. The dialects cap them (MAX_CACHE_CHECKPOINTS); a call with any is
 * held as a 1-hour write of its prompt.
 */
export function cacheCheckpoints(request: Pick<ChatRequest, 'system' | 'messages' | 'tools'>): number {
  const inParts = (content: string | ContentPart[]) => (typeof content === 'string' ? 0 : content.filter((p) => p.cache).length);
  return (
    (typeof request.system === 'string' || !request.system ? 0 : request.system.filter((p) => p.cache).length) +
    request.messages.reduce((n, m) => n + ('cache' in m && m.cache ? 1 : 0) + (m.role === 'assistant' ? 0 : inParts(m.content)), 0) +
    (request.tools ?? []).filter((t) => t.cache).length
  );
}

// Catalogue shapes: lib/platforms/catalogue-types.ts
import type { DedicatedModelEntry, HostedModelEntry, ManagedModelEntry, PlatformModelInfo } from './catalogue-types';
export type {
  DedicatedModelEntry,
  HostedModelEntry,
  InvocationWays,
  ManagedModelEntry,
  ModelInfo,
  ModelLifecycle,
  PlatformModelInfo,
} from './catalogue-types';

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

export interface HostedPlatform extends ChatCapable, EmbeddingCapable {
  readonly configured: boolean;
  readonly baseUrl: string;
  /** `raw` is the upstream response as received, for `debug=1`. */
  listModels(): Promise<{ models: HostedModelEntry[]; raw: unknown }>;
  getModel(modelId: string): Promise<PlatformModelInfo | undefined>;
  /** Throws UpstreamError (with upstreamStatus) when the API does not answer well. */
  checkConnectivity(modelId: string): Promise<{ endpoint: string }>;
}
