/**
 * Every environment variable the service reads, read and checked once per cold start.
 *
 * A missing or malformed setting throws here, at import time, so a misconfigured function fails its
 * cold start with a clear message instead of answering requests wrongly. The signing secret is the
 * one exception: deployed stages fetch it from SSM, so it is checked in lib/auth/secret.ts when it
 * arrives.
 */

import { dynamoLocalCredentials } from './dynamo-local';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function str(env: Env, key: string, fallback?: string): string {
  const value = env[key]?.trim();
  if (value) return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`Configuration error: ${key} is not set`);
}

function optional(env: Env, key: string): string | undefined {
  const value = env[key]?.trim();
  return value ? value : undefined;
}

function int(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`Configuration error: ${key} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function optionalInt(env: Env, key: string, min: number, max: number): number | undefined {
  return env[key]?.trim() ? int(env, key, 0, min, max) : undefined;
}

function list(env: Env, key: string): string[] {
  return (env[key] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function url(env: Env, key: string, fallback?: string): string | undefined {
  const value = optional(env, key) ?? fallback;
  if (value === undefined) return undefined;
  try {
    new URL(value);
  } catch {
    throw new ConfigError(`Configuration error: ${key} must be a URL, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function bool(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(`Configuration error: ${key} must be true or false, got "${env[key]}"`);
}

/**
 * A secret: its value (local runs and tests: `serverless package` and `deploy` refuse it for any other
 * stage, scripts/serverless-secrets.cjs) or the name of the SSM SecureString that holds it (`<KEY>_PARAMETER`),
 * read at the first use in a container (lib/aws/parameter-store.ts secretReader).
 */
export type SecretSetting = { kind: 'value'; value: string } | { kind: 'ssm'; parameterName: string };

function secret(env: Env, key: string): SecretSetting | undefined {
  const value = optional(env, key);
  if (value) return { kind: 'value', value };
  const parameterName = optional(env, `${key}_PARAMETER`);
  return parameterName ? { kind: 'ssm', parameterName } : undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An https URL, or an http one on loopback (local runs and tests): the value as given. */
function secureUrl(env: Env, key: string): URL {
  const value = str(env, key);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`Configuration error: ${key} must be a URL, got "${value}"`);
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname))) {
    throw new ConfigError(`Configuration error: ${key} must be an https URL (http only on localhost), got "${value}"`);
  }
  if (parsed.search || parsed.hash) throw new ConfigError(`Configuration error: ${key} must have no query or fragment, got "${value}"`);
  return parsed;
}

/** The path of the SSO callback route (functions/auth/functions.yml): OIDC_REDIRECT_URL must end with it. */
const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

/**
 * Single sign-on with an OpenID Connect provider: off unless OIDC_ISSUER is set, and then every
 * setting it needs is checked here, so a half-configured deployment fails its cold start naming the
 * variable instead of failing a person mid-login. The client secret is OIDC_CLIENT_SECRET for local
 * runs and tests; deployed stages name an SSM SecureString (OIDC_CLIENT_SECRET_PARAMETER), as for
 * the token signing secret, so that it is in neither the template nor the function's configuration.
 */
function loadOidc(env: Env) {
  const issuerRaw = optional(env, 'OIDC_ISSUER');
  if (!issuerRaw) {
    const stray = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URL'].find((k) => optional(env, k));
    if (stray) throw new ConfigError(`Configuration error: ${stray} is set but OIDC_ISSUER is not; set OIDC_ISSUER to turn single sign-on on`);
    return undefined;
  }
  secureUrl(env, 'OIDC_ISSUER');
  const redirect = secureUrl(env, 'OIDC_REDIRECT_URL');
  if (!redirect.pathname.endsWith(OIDC_CALLBACK_PATH)) {
    throw new ConfigError(`Configuration error: OIDC_REDIRECT_URL must end with ${OIDC_CALLBACK_PATH}, got "${redirect.href}"`);
  }
  const clientSecret = secret(env, 'OIDC_CLIENT_SECRET');
  if (!clientSecret) {
    throw new ConfigError('Configuration error: OIDC_CLIENT_SECRET (or OIDC_CLIENT_SECRET_PARAMETER, an SSM SecureString name) is not set');
  }
  const scopes = (optional(env, 'OIDC_SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) throw new ConfigError(`Configuration error: OIDC_SCOPES must include openid, got "${scopes.join(' ')}"`);
  const prefix = optional(env, 'OIDC_TEAM_GROUPS_PREFIX');
  return {
    /** Exactly as the provider states it in its discovery document (a trailing slash matters). */
    issuer: issuerRaw,
    discoveryUrl: `${issuerRaw.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    clientId: str(env, 'OIDC_CLIENT_ID'),
    clientSecret,
    redirectUrl: redirect.href,
    /** Where a finished sign-in lands: the console, on the callback's own origin. */
    consoleUrl: `${redirect.origin}/login`,
    /** Cookies carry Secure wherever the redirect URL is https (everywhere but loopback). */
    secureCookies: redirect.protocol === 'https:',
    scopes,
    groupsClaim: str(env, 'OIDC_GROUPS_CLAIM', 'groups'),
    adminGroups: list(env, 'OIDC_ADMIN_GROUPS'),
    superAdminGroups: list(env, 'OIDC_SUPER_ADMIN_GROUPS'),
    /** Groups named <prefix><team name> join that team; unset: groups join no team. */
    teamGroupsPrefix: prefix,
    providerTimeoutMs: int(env, 'OIDC_TIMEOUT_MS', 5000, 100, 20_000),
  };
}

export type OidcConfig = NonNullable<ReturnType<typeof loadOidc>>;

function loadAuth(env: Env) {
  const oidc = loadOidc(env);
  const passwordLogin = bool(env, 'PASSWORD_LOGIN', true);
  if (!passwordLogin && !oidc) {
    throw new ConfigError('Configuration error: PASSWORD_LOGIN=false needs single sign-on (OIDC_ISSUER and its settings): nobody could log in');
  }
  return {
    /** README, Security: exp is exactly iat + 24 h. Not configurable on purpose. */
    tokenLifetimeSeconds: 86_400,
    bcryptCost: int(env, 'BCRYPT_COST', 10, 4, 15),
    minPasswordLength: int(env, 'MIN_PASSWORD_LENGTH', 8, 8, 128),
    /**
     * Brute-force throttle (lib/auth/login.ts): failures on one account (or one name that is no
     * account) before each further attempt must wait, 1 s and doubling with each failure up to
     * the maximum delay; failures are forgotten a window after the last one.
     */
    loginMaxFailures: int(env, 'LOGIN_MAX_FAILURES', 10, 1, 1000),
    loginFailureWindowSeconds: int(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
    loginMaxDelaySeconds: int(env, 'LOGIN_MAX_DELAY_SECONDS', 60, 1, 86_400),
    /** Failed logins from one source address, any names, within a window before it waits for the window's end. */
    loginAddressMaxFailures: int(env, 'LOGIN_ADDRESS_MAX_FAILURES', 30, 1, 100_000),
    /** POST /api/auth/login with a password; false leaves single sign-on as the only way in. */
    passwordLogin,
    oidc,
  };
}

const DEFAULT_HOSTED_BASE_URL = 'https://integrate.api.nvidia.com/v1';

export function loadConfig(env: Env = process.env) {
  return {
    stage: str(env, 'STAGE', 'local'),
    serviceName: 'model-ops',

    table: {
      name: str(env, 'TABLE_NAME', 'model-ops-local'),
      /** DynamoDB Local in development and tests; unset in AWS. */
      endpoint: url(env, 'DYNAMODB_ENDPOINT'),
      /** What the client gives DynamoDB Local (core/dynamo-local.ts): DYNAMODB_LOCAL_ACCESS_KEY_ID's database. */
      localCredentials: dynamoLocalCredentials(env),
      region: str(env, 'AWS_REGION', str(env, 'AWS_DEFAULT_REGION', 'us-east-1')),
      /**
       * How long a request may wait for its connection, and for its answer, before the database counts
       * as unavailable. In Lambda a function has one request in flight (a few, in parallel); tests and
       * benchmarks that run hundreds of simulated invocations through one client against one DynamoDB
       * Local raise both, because a request queued for one of the client's 50 sockets counts too.
       */
      connectionTimeoutMs: int(env, 'DYNAMODB_CONNECTION_TIMEOUT_MS', 3000, 100, 120_000),
      requestTimeoutMs: int(env, 'DYNAMODB_REQUEST_TIMEOUT_MS', 5000, 100, 120_000),
      /**
       * How long a chat turn keeps retrying its one write (conflicts with the caller's own concurrent
       * turns, a brief outage) once the model has answered: well inside the function's 29 s.
       */
      turnWriteRetryMs: int(env, 'TURN_WRITE_RETRY_MS', 10_000, 100, 120_000),
    },

    auth: loadAuth(env),

    http: {
      /** Requests with a larger body are refused with 413 before any parsing. */
      maxBodyBytes: int(env, 'MAX_BODY_BYTES', 131_072, 1024, 6 * 1024 * 1024),
      corsOrigin: str(env, 'CORS_ORIGIN', '*'),
    },

    cloud: {
      region: str(env, 'SERVICE_CLOUD_REGION', 'us-east-1'),
      accessKeyId: optional(env, 'SERVICE_CLOUD_ACCESS_KEY_ID'),
      /** Deployed stages: SERVICE_CLOUD_SECRET_ACCESS_KEY_PARAMETER, an SSM SecureString. */
      secretAccessKey: secret(env, 'SERVICE_CLOUD_SECRET_ACCESS_KEY'),
      /** Endpoint override for every platform AWS client (the local emulator); unset in AWS. */
      endpoint: url(env, 'SERVICE_CLOUD_ENDPOINT'),
    },

    dedicated: {
      executionRoleArn: optional(env, 'DEDICATED_EXECUTION_ROLE_ARN'),
      subnetIds: list(env, 'DEDICATED_SUBNET_IDS'),
      securityGroupIds: list(env, 'DEDICATED_SECURITY_GROUP_IDS'),
      /**
       * How long the platform takes to create, update or delete an endpoint, for what people are told
       * ("Creating for about 5 seconds"); unset: SageMaker's usual 5 to 10 minutes. `npm start` sets
       * the emulator's delay.
       */
      stateChangeSeconds: optionalInt(env, 'DEDICATED_STATE_CHANGE_SECONDS', 0, 86_400),
    },

    hosted: {
      /** Deployed stages: HOSTED_API_KEY_PARAMETER, an SSM SecureString. */
      apiKey: secret(env, 'HOSTED_API_KEY'),
      baseUrl: url(env, 'HOSTED_BASE_URL', DEFAULT_HOSTED_BASE_URL) as string,
    },

    upstream: {
      /**
       * Every platform call has a timeout and bounded retries with backoff. The defaults keep the
       * worst case (2 × 12 s plus backoff) inside API Gateway's and the function's 29 s.
       */
      timeoutMs: int(env, 'UPSTREAM_TIMEOUT_MS', 12_000, 100, 120_000),
      maxAttempts: int(env, 'UPSTREAM_MAX_ATTEMPTS', 2, 1, 10),
    },

    routes: {
      /**
       * How long a function instance keeps a route's definition (its name, targets, strategy) after
       * reading it, so a call through the route on the happy path reads only its targets' items
       * (their cooldowns are never kept: lib/calls/resolve.ts). A change made on another instance is
       * seen after at most this long; 0 reads the route on every call.
       */
      definitionSeconds: int(env, 'ROUTE_DEFINITION_TTL_SECONDS', 5, 0, 300),
    },

    catalogue: {
      cacheTtlSeconds: int(env, 'MODEL_CACHE_TTL_SECONDS', 3600, 0, 7 * 86_400),
    },

    chat: {
      contextTurns: int(env, 'CHAT_CONTEXT_TURNS', 10, 0, 100),
      contextTokenBudget: int(env, 'CHAT_CONTEXT_TOKEN_BUDGET', 4000, 0, 200_000),
      maxOutputTokens: int(env, 'CHAT_MAX_OUTPUT_TOKENS', 1024, 1, 32_000),
    },

    responses: {
      /** How long /v1/responses keeps a stored response (DynamoDB's TTL deletes it after that). */
      ttlDays: int(env, 'RESPONSES_TTL_DAYS', 30, 1, 3650),
    },

    reconciler: {
      /** Tracked dedicated resources one pass examines; the next pass goes on where this one stopped. */
      maxResourcesPerPass: int(env, 'RECONCILE_MAX_RESOURCES', 200, 1, 5000),
      /** Platform calls a pass makes per second at most (SageMaker's control-plane quotas are low). */
      platformCallsPerSecond: int(env, 'RECONCILE_PLATFORM_CALLS_PER_SECOND', 10, 1, 100),
      /** ListTags calls a pass makes at most to classify endpoints it does not track (the rest wait a pass). */
      maxTagChecksPerPass: int(env, 'RECONCILE_MAX_TAG_CHECKS', 100, 0, 5000),
    },

    alerts: {
      /**
       * The name prefix of the SNS topics alert channels may publish to: the deployed template grants
       * Publish on the topics of its account and region so named. Unset (tests): any topic.
       */
      topicPrefix: optional(env, 'ALERTS_SNS_TOPIC_PREFIX'),
      /** The SES identity alert e-mails are sent from; unset: no e-mail channels. */
      emailFrom: optional(env, 'ALERTS_EMAIL_FROM'),
      /** Attempts at one delivery within a stream batch, and the first backoff (doubled after each). */
      deliveryAttempts: int(env, 'ALERTS_DELIVERY_ATTEMPTS', 3, 1, 10),
      retryBaseMs: int(env, 'ALERTS_RETRY_BASE_MS', 1000, 0, 60_000),
      webhookTimeoutMs: int(env, 'ALERTS_WEBHOOK_TIMEOUT_MS', 5000, 100, 30_000),
      /**
       * Whether webhooks may be http://127.0.0.1: on this machine only, that is the local stage or any
       * stage under serverless-offline (which sets IS_OFFLINE; the test stack runs stage e2e there).
       * Lambda never sets IS_OFFLINE, so a deployed stage refuses loopback whatever it is called.
       */
      loopbackWebhooks: str(env, 'STAGE', 'local') === 'local' || env.IS_OFFLINE === 'true',
    },

    observability: {
      logLevel: str(env, 'LOG_LEVEL', 'INFO').toUpperCase(),
      // Tracing is chosen when the bundles are built (TRACING_ENABLED, serverless.yml: `#tracing`).
    },
  };
}

export type Config = ReturnType<typeof loadConfig>;

export const config: Config = loadConfig();

/** README, Security: the HMAC signing secret has at least 256 bits. */
const MIN_SECRET_BYTES = 32;

export type SigningSecretSource = { kind: 'value'; key: Uint8Array } | { kind: 'ssm'; parameterName: string };

/**
 * Where the token signing secret comes from: JWT_SECRET (local runs and tests) or, in deployed stages,
 * the SSM SecureString parameter named by JWT_SECRET_PARAMETER. Called at module scope by
 * lib/auth/tokens.ts, so every function that handles tokens refuses to start without a strong secret.
 */
export function signingSecretSource(env: Env = process.env): SigningSecretSource {
  const value = env.JWT_SECRET;
  const parameterName = env.JWT_SECRET_PARAMETER?.trim();
  if (value) return { kind: 'value', key: checkSigningSecret(value, 'JWT_SECRET') };
  if (parameterName) return { kind: 'ssm', parameterName };
  throw new ConfigError(
    'Configuration error: no token signing secret. Set JWT_SECRET (at least 32 bytes) or JWT_SECRET_PARAMETER (an SSM SecureString name)',
  );
}

export function checkSigningSecret(secret: string, source: string): Uint8Array {
  const key = new TextEncoder().encode(secret);
  if (key.byteLength < MIN_SECRET_BYTES) {
    throw new ConfigError(
      `Configuration error: the token signing secret from ${source} is ${key.byteLength * 8} bits; at least ${MIN_SECRET_BYTES * 8} bits are required`,
    );
  }
  return key;
}
