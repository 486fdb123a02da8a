/**
 * Types and helpers every service module needs. They live apart from server.ts so that the service
 * modules never import the dispatcher that imports them (an ESM cycle would leave classes in their
 * temporal dead zone depending on which module a caller happens to load first).
 */
import type { IncomingHttpHeaders } from 'node:http';

export const ACCOUNT_ID = '123456789012';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  lifecycleDelayMs?: number;
  responseDelayMs?: number;
  region?: string;
  hostedApiKey?: string;
  /** SSM parameters (SecureStrings) that GetParameter answers: name → value. */
  parameters?: Record<string, string>;
  /**
   * Where the platform state is kept across restarts (`npm start`: .data/emulator-state.json;
   * persistence.ts). Without it the state lives in memory only, as in the tests.
   */
  stateFile?: string;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  lifecycleDelayMs: number;
  responseDelayMs: number;
  region: string;
  hostedApiKey: string;
  parameters: Record<string, string>;
  accountId: string;
}

/**
 * Streamed answers (ConverseStream, InvokeEndpointWithResponseStream, hosted `stream: true`) have two
 * faults of their own: `slow-stream` spaces the chunks STREAM_SLOW_CHUNK_MS apart (so a client can hang
 * up mid-answer), `midstream` sends half the chunks and then the service's own in-stream error.
 *
 * `timeout`: never answered, nothing done. `lost`: done, then never answered (the request reached the
 * service but its answer was lost: the ambiguous failure a client cannot tell from a timeout).
 * `context`: the model call refused as over the model's context window, in the service's own words
 * (ServiceDef.contextError; a service without model calls answers it as `500`).
 */
export const FAULT_KINDS = ['500', '429', 'timeout', 'lost', 'malformed', 'fail', 'slow-stream', 'midstream', 'context'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
const STREAM_SLOW_CHUNK_MS = 40;

export interface FaultRule {
  id: string;
  target: string;
  model?: string;
  fault: FaultKind;
  /** null = until cleared. */
  remaining: number | null;
  /** Matching calls let through before the fault applies (a fault "from the n-th call on"). */
  skip: number;
  /** The calls it answered so far (GET /_emulator/faults): how many times a client asked a faulted model. */
  hits: number;
  /**
   * Only calls signed with this access key id (SigV4's Credential): one test's fault, unseen by the
   * tests that call the same model side by side with keys of their own.
   */
  caller?: string;
}

type EndpointStatus = 'Creating' | 'Updating' | 'InService' | 'Deleting' | 'Failed';

interface PendingTransition {
  /** `capacity`: UpdateEndpointWeightsAndCapacities, new instance counts on the same config. */
  kind: 'create' | 'update' | 'capacity' | 'delete';
  startedAt: number;
  /** The config an update switches to once it completes. */
  configName?: string;
  /** A capacity change's instance counts per variant, applied once it completes. */
  instanceCounts?: Record<string, number>;
  /** Set when a 'fail' fault matched: the transition ends in failure with this reason. */
  failureReason?: string;
}

export interface Endpoint {
  name: string;
  arn: string;
  configName: string;
  status: EndpointStatus;
  createdAt: number;
  modifiedAt: number;
  failureReason?: string;
  /** True once the endpoint has been InService: decides whether variants are reported. */
  deployed: boolean;
  /** Instance counts set by UpdateEndpointWeightsAndCapacities, over the config's initial ones. */
  instanceCounts?: Record<string, number>;
  pending?: PendingTransition;
}

export interface ProductionVariant {
  VariantName: string;
  ModelName: string;
  InitialInstanceCount?: number;
  InstanceType?: string;
  InitialVariantWeight?: number;
  [key: string]: unknown;
}

export interface EndpointConfig {
  name: string;
  arn: string;
  createdAt: number;
  variants: ProductionVariant[];
  input: Record<string, unknown>;
}

export interface SmModel {
  name: string;
  arn: string;
  createdAt: number;
  input: Record<string, unknown>;
}

export interface Invocation {
  endpoint: string;
  /** The production variant that served the call (CloudWatch's VariantName dimension). */
  variant: string;
  at: number;
  latencyUs: number;
  status: number;
}

/** An application inference profile the emulator holds (CreateInferenceProfile). */
export interface ApplicationProfile {
  id: string;
  arn: string;
  name: string;
  description?: string;
  modelArns: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Tag {
  Key: string;
  Value: string;
}

interface PublishedMessage {
  messageId: string;
  topicArn: string;
  subject?: string;
  message: string;
  attributes: Record<string, string>;
}

interface SentEmail {
  messageId: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface EmulatorState {
  calls: Record<string, number>;
  faults: FaultRule[];
  endpoints: Map<string, Endpoint>;
  endpointConfigs: Map<string, EndpointConfig>;
  models: Map<string, SmModel>;
  /** SageMaker tags by resource ARN (endpoints, endpoint configs, models). */
  tags: Map<string, Tag[]>;
  invocations: Invocation[];
  /** Bedrock application inference profiles by id (their tags are in `tags`, by ARN). */
  inferenceProfiles: Map<string, ApplicationProfile>;
  /** System-defined profile ids AWS no longer offers in the Region (the control API retires them): unlisted, and refused as targets. */
  retiredProfiles: Set<string>;
  /** How often each Bedrock runtime modelId (base id, profile id or ARN) was called: what tests ask. */
  runtimeTargets: Record<string, number>;
  /** The same counts by the access key id that signed the calls (tests running side by side count their own). */
  runtimeTargetsByCaller: Record<string, Record<string, number>>;
  /** SNS Publish calls received (local/emulator/notify.ts), what tests and `npm start` read back. */
  published: PublishedMessage[];
  /** SES v2 SendEmail calls received. */
  emails: SentEmail[];
  nextId: number;
}

export function createState(): EmulatorState {
  return {
    calls: {},
    faults: [],
    endpoints: new Map(),
    endpointConfigs: new Map(),
    models: new Map(),
    tags: new Map(),
    invocations: [],
    inferenceProfiles: new Map(),
    retiredProfiles: new Set(),
    runtimeTargets: {},
    runtimeTargetsByCaller: {},
    published: [],
    emails: [],
    nextId: 1,
  };
}

/** The access key id a SigV4-signed request was signed with (`Credential=<id>/<date>/...`). */
export function signedBy(ctx: Pick<Ctx, 'headers'>): string | undefined {
  const auth = ctx.headers.authorization;
  return typeof auth === 'string' ? /Credential=([^/,\s]+)\//.exec(auth)?.[1] : undefined;
}

export interface Ctx {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  state: EmulatorState;
  opts: ResolvedOptions;
  /** Set when a 'fail' fault matched an operation that gives failing a domain meaning. */
  fail: boolean;
  /** Set when a stream fault matched: how a streamed answer misbehaves. */
  streamFault?: 'slow-stream' | 'midstream';
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** A streamed answer: written chunk by chunk as it comes (no Content-Length); `body` is then empty. */
  stream?: AsyncIterable<Buffer>;
}

/**
 * A streamed reply of `frames`, as the services send one: chunk by chunk, spaced out under a
 * `slow-stream` fault; under `midstream`, half of them and then `failure` (the in-stream error).
 */
export function streamReply(ctx: Ctx, contentType: string, frames: Buffer[], failure: Buffer, headers: Record<string, string> = {}): Reply {
  const fault = ctx.streamFault;
  async function* chunks() {
    const sent = fault === 'midstream' ? frames.slice(0, Math.max(1, Math.floor(frames.length / 2))) : frames;
    for (const frame of sent) {
      yield frame;
      if (fault === 'slow-stream') await sleep(STREAM_SLOW_CHUNK_MS);
    }
    if (fault === 'midstream') yield failure;
  }
  return { status: 200, headers: { 'content-type': contentType, ...headers }, body: Buffer.alloc(0), stream: chunks() };
}

export interface Route {
  op: string;
  /** What a fault's `model` is matched against: model ids, endpoint names, the models behind them. */
  keys: string[];
  run: () => Promise<Reply>;
  /** The operation has its own meaning for a 'fail' fault; otherwise 'fail' behaves as '500'. */
  canFail?: boolean;
}

/**
 * How a service family spells its errors on the wire. The SDK reads the error name from different
 * places per protocol, so the emulator must put it exactly where each client looks.
 */
type ErrorStyle =
  | { kind: 'restJson'; messageKey: 'message' | 'Message'; errorTypeSuffix?: string }
  | { kind: 'awsJson'; contentType: string; messageKey: 'message' | 'Message' }
  | { kind: 'queryCompatJson'; contentType: string; namespace: string }
  | { kind: 'problem' }
  /** awsQuery services (SNS): an XML ErrorResponse naming the code and who is to blame. */
  | { kind: 'awsQueryXml'; namespace: string };

export interface ServiceDef {
  name: string;
  errorStyle: ErrorStyle;
  internalError: () => EmulatorError;
  throttlingError: () => EmulatorError;
  /** A model call's refusal of an input over the model's context window (the `context` fault). */
  contextError?: (ctx: Ctx, route: Route) => EmulatorError;
  route: (ctx: Ctx) => Route | undefined;
  /** Sees every finished request of the service, faulted ones included (for metrics). */
  onComplete?: (ctx: Ctx, route: Route, status: number, elapsedMs: number) => void;
}

export interface ErrorDetails {
  /** Extra members of the error shape (ModelError's OriginalStatusCode and the like). */
  extra?: Record<string, unknown>;
  /** awsQuery-compatible services: the legacy error code and whether the caller is to blame. */
  queryCode?: string;
  queryFault?: 'Sender' | 'Receiver';
  /** Problem-details services: the title line. */
  title?: string;
  problemType?: string;
}

export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}

export function jsonReply(value: unknown, contentType = 'application/json', status = 200): Reply {
  return { status, headers: { 'content-type': contentType }, body: Buffer.from(JSON.stringify(value)) };
}

export function parseJson<T>(ctx: Ctx): T {
  if (ctx.body.length === 0) return {} as T;
  try {
    return JSON.parse(ctx.body.toString('utf8')) as T;
  } catch {
    throw new EmulatorError(400, 'SerializationException', 'Start of structure or map found where not expected.');
  }
}

/** Epoch seconds with milliseconds, the default timestamp format of both JSON protocols. */
export function epochSeconds(ms: number): number {
  return ms / 1000;
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/**
 * Offset-based pagination behind an opaque token, as the services do; a token that does not decode
 * is refused by the caller-supplied error so each service keeps its own exception name.
 */
export function paginate<T>(
  items: T[],
  maxResults: number | undefined,
  defaultMax: number,
  nextToken: string | undefined,
  badToken: () => EmulatorError,
): { page: T[]; nextToken?: string } {
  let start = 0;
  if (nextToken) {
    const decoded = Number(
      Buffer.from(nextToken, 'base64url')
        .toString('utf8')
        .replace(/^offset:/, ''),
    );
    if (!Number.isInteger(decoded) || decoded < 0 || decoded > items.length) throw badToken();
    start = decoded;
  }
  const size = maxResults && maxResults > 0 ? maxResults : defaultMax;
  const end = start + size;
  return {
    page: items.slice(start, end),
    nextToken: end < items.length ? Buffer.from(`offset:${end}`).toString('base64url') : undefined,
  };
}

/** Drops undefined members so optional fields are absent rather than null on the wire. */
export function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
