/**
 * OpenID Connect, the relying party's side: the authorization code flow with PKCE (S256), state and
 * nonce, against any provider found by discovery (OIDC_ISSUER). lib/signon/callback.ts turns the verified
 * identity into this service's user and token.
 *
 * The flow's secrets (state, nonce, PKCE verifier) travel in one cookie, encrypted and authenticated
 * (JWE, dir + A256GCM, under a key derived from the token signing secret), HttpOnly, SameSite=Lax
 * (sent on the provider's top-level redirect back, never on another site's sub-request), Secure
 * wherever the service is on https, scoped to /api/auth/oidc and expiring with the flow (10 minutes).
 * A cookie, not a table item, because the flow must be bound to the browser that started it (a
 * table item would still need a cookie naming it, or a stolen `state` would log a victim's browser
 * into the attacker's account), and because the login start then writes nothing: anyone may call it.
 * The callback clears the cookie whatever happens, so one flow finishes at most once in a browser;
 * the authorization code is one-time at the provider, so a replayed callback fails there too.
 *
 * The ID token is verified against the provider's JWKS: signature (asymmetric algorithms only, from
 * the discovery document), `iss` exactly the configured issuer, `aud` containing the client id, `azp`
 * the client id when present (and required when there are several audiences), `exp`, `iat`, `sub`,
 * and `nonce` equal to the flow's. The discovery document and the JWKS are fetched once per cold start
 * (jose's remote key set fetches again, at most every 30 s, only for a key id it does not know: a
 * rotation at the provider).
 */
import { createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, createRemoteJWKSet, jwtDecrypt, jwtVerify, errors as joseErrors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { config, type OidcConfig } from '../../core/config';
import { secretReader } from '../aws/parameter-store';
import { signingKey } from './secret';

/** A sign-in that cannot go on, in words for the person signing in (shown on the console's login page). */
export class SsoError extends Error {
  override name = 'SsoError';
  constructor(
    message: string,
    /** A short name for logs and metrics: state, code_refused, id_token, provider_unreachable, ... */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  id_token_signing_alg_values_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
}

const FLOW_COOKIE = 'mo_sso';
const FLOW_COOKIE_PATH = '/api/auth/oidc';
const FLOW_SECONDS = 600;
/** Signatures a relying party with a client secret may trust from a JWKS: public-key ones only. */
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/;

export function oidcConfig(): OidcConfig {
  const oidc = config.auth.oidc;
  if (!oidc) throw new SsoError('Single sign-on is not configured', 'not_configured');
  return oidc;
}

async function fetchJson(url: string, init: RequestInit, what: string): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(oidcConfig().providerTimeoutMs) });
  } catch (err) {
    throw new SsoError(`The identity provider did not answer (${what}); try again shortly`, 'provider_unreachable', { cause: err });
  }
  const text = await response.text();
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body)) return { status: response.status, body: body as Record<string, unknown> };
  } catch {
    // below
  }
  throw new SsoError(`The identity provider answered ${what} with something that is not JSON (status ${response.status})`, 'provider_malformed');
}

let metadata: Promise<ProviderMetadata> | undefined;
let keySet: JWTVerifyGetKey | undefined;

/** The provider's discovery document, fetched once per cold start (a failure is not kept). */
function providerMetadata(): Promise<ProviderMetadata> {
  metadata ??= discover(oidcConfig()).catch((err: unknown) => {
    metadata = undefined;
    throw err;
  });
  return metadata;
}

async function discover(oidc: OidcConfig): Promise<ProviderMetadata> {
  const { status, body } = await fetchJson(oidc.discoveryUrl, {}, 'its discovery document');
  if (status !== 200) throw new SsoError(`The identity provider's discovery document answered ${status}`, 'provider_discovery');
  // OpenID Connect Discovery 1.0, section 4.3: the issuer must be exactly the one configured.
  if (body.issuer !== oidc.issuer) {
    throw new SsoError(
      `The identity provider's discovery document names the issuer "${String(body.issuer)}", not "${oidc.issuer}"`,
      'provider_discovery',
    );
  }
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (typeof body[field] !== 'string') throw new SsoError(`The identity provider's discovery document has no ${field}`, 'provider_discovery');
  }
  const challenges = body.code_challenge_methods_supported;
  if (Array.isArray(challenges) && !challenges.includes('S256')) {
    throw new SsoError('The identity provider does not support PKCE with S256', 'provider_discovery');
  }
  return body as unknown as ProviderMetadata;
}

function jwks(md: ProviderMetadata): JWTVerifyGetKey {
  keySet ??= createRemoteJWKSet(new URL(md.jwks_uri), { timeoutDuration: oidcConfig().providerTimeoutMs });
  return keySet;
}

// ----------------------------------------------------------------------------------- flow cookie

export interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  /**
   * The console's own nonce (from sessionStorage of the tab that pressed the button), echoed to it with
   * the hand-off: a hand-off the console did not ask for (a link carrying someone else's token or an
   * error of their choosing: login CSRF) has no nonce it knows, and it ignores it.
   */
  consoleNonce: string;
  /** Where the console goes once signed in (a path of its own). */
  next?: string;
}

let flowKey: Promise<Uint8Array> | undefined;

/** The cookie's key: 256 bits derived from the token signing secret, for this purpose only. */
function cookieKey(): Promise<Uint8Array> {
  flowKey ??= signingKey().then((secret) => new Uint8Array(hkdfSync('sha256', secret, 'model-ops', 'oidc flow cookie v1', 32)));
  return flowKey;
}

const random = () => randomBytes(32).toString('base64url');

export function cookieHeader(value: string, maxAgeSeconds: number): string {
  const secure = oidcConfig().secureCookies ? '; Secure' : '';
  return `${FLOW_COOKIE}=${value}; Path=${FLOW_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** The flow's cookie value out of the request's cookies (API Gateway's `cookies`, or a Cookie header). */
export function flowCookieOf(cookies: string[] | undefined, header: string | undefined): string | undefined {
  const all = [...(cookies ?? []), ...(header ?? '').split(';')].map((c) => c.trim());
  const found = all.find((c) => c.startsWith(`${FLOW_COOKIE}=`));
  return found?.slice(FLOW_COOKIE.length + 1) || undefined;
}

/**
 * The start of a sign-in: where to send the browser (the provider's authorization endpoint with
 * the flow's parameters) and the cookie that remembers the flow.
 */
export async function startFlow(start: { consoleNonce: string; next?: string }, now = Date.now()): Promise<{ location: string; cookie: string }> {
  const oidc = oidcConfig();
  const md = await providerMetadata();
  const { consoleNonce, next } = start;
  const flow: Flow = { state: random(), nonce: random(), verifier: random(), consoleNonce, ...(next ? { next } : {}) };
  const sealed = await new EncryptJWT({ ...flow })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + FLOW_SECONDS)
    .encrypt(await cookieKey());
  const url = new URL(md.authorization_endpoint);
  const params = {
    response_type: 'code',
    client_id: oidc.clientId,
    redirect_uri: oidc.redirectUrl,
    scope: oidc.scopes.join(' '),
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: createHash('sha256').update(flow.verifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { location: url.href, cookie: cookieHeader(sealed, FLOW_SECONDS) };
}

/** The flow this browser started, out of its cookie; SsoError `no_flow` when there is none, or it expired or was tampered with. */
export async function openFlow(sealed: string | undefined, now = Date.now()): Promise<Flow> {
  const restart = 'This sign-in has expired or was started in another browser; please start again';
  if (!sealed) throw new SsoError(restart, 'no_flow');
  try {
    const { payload } = await jwtDecrypt(sealed, await cookieKey(), {
      currentDate: new Date(now),
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const { state, nonce, verifier, consoleNonce, next } = payload as Partial<Flow>;
    if ([state, nonce, verifier, consoleNonce].some((v) => typeof v !== 'string')) throw new Error('incomplete flow');
    return { state, nonce, verifier, consoleNonce, next: typeof next === 'string' ? next : undefined } as Flow;
  } catch {
    throw new SsoError(restart, 'no_flow');
  }
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

// --------------------------------------------------------------------------------------- callback

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
  iss?: string;
}

/** Who signed in, as the provider says (ID token, completed from the userinfo endpoint). */
export interface Identity {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  preferredUsername?: string;
  name?: string;
  groups: string[];
  /**
   * Whether the groups claim (OIDC_GROUPS_CLAIM) was there at all, in the ID token or the userinfo:
   * an empty list is "in no group", an absent claim is a provider that was not asked for it (the
   * `groups` scope missing from OIDC_SCOPES) or that names it otherwise.
   */
  groupsClaimed: boolean;
  /** Where the console goes next (a path of its own), as asked when the sign-in started. */
  next?: string;
}

/**
 * Finishes a sign-in: checks the provider's answer against the flow this browser started (openFlow),
 * redeems the code (with the PKCE verifier), verifies the ID token, reads the userinfo. Throws
 * SsoError with words for the person otherwise.
 */
export async function finishFlow(query: CallbackQuery, flow: Flow, now = Date.now()): Promise<Identity> {
  const oidc = oidcConfig();
  if (query.error) {
    const description = query.error_description ? `: ${query.error_description.slice(0, 300)}` : '';
    throw new SsoError(`The identity provider did not sign you in (${query.error.slice(0, 100)}${description})`, 'provider_refused');
  }
  if (!query.state || !sameText(query.state, flow.state)) {
    throw new SsoError('The sign-in response does not belong to the sign-in this browser started (state mismatch); please start again', 'state');
  }
  // RFC 9207: a provider that names itself must be ours (a mix-up with another provider otherwise).
  if (query.iss !== undefined && query.iss !== oidc.issuer) throw new SsoError('The sign-in response comes from another issuer', 'issuer');
  if (!query.code) throw new SsoError('The identity provider sent no authorization code', 'no_code');
  const md = await providerMetadata();
  const tokens = await redeemCode(oidc, md, query.code, flow.verifier);
  const claims = await verifyIdToken(tokens.idToken, jwks(md), {
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    nonce: flow.nonce,
    algorithms: idTokenAlgorithms(md),
    now,
  });
  const info = md.userinfo_endpoint && tokens.accessToken ? await userinfo(md.userinfo_endpoint, tokens.accessToken, claims.sub as string) : {};
  const all: Record<string, unknown> = { ...info, ...claims };
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const groupsClaim = all[oidc.groupsClaim];
  return {
    issuer: oidc.issuer,
    subject: claims.sub as string,
    email: text(all.email),
    emailVerified: all.email_verified === true || all.email_verified === 'true',
    preferredUsername: text(all.preferred_username) ?? text(all.nickname),
    name: text(all.name),
    groups: Array.isArray(groupsClaim)
      ? groupsClaim.filter((g): g is string => typeof g === 'string')
      : typeof groupsClaim === 'string'
        ? [groupsClaim]
        : [],
    groupsClaimed: groupsClaim !== undefined && groupsClaim !== null,
    next: flow.next,
  };
}

const idTokenAlgorithms = (md: ProviderMetadata) => {
  const offered = (md.id_token_signing_alg_values_supported ?? ['RS256']).filter((a) => ASYMMETRIC.test(a));
  return offered.length > 0 ? offered : ['RS256'];
};

let clientSecret: (() => Promise<string>) | undefined;

/** The token endpoint: the code and the PKCE verifier for the tokens, authenticated as the client. */
async function redeemCode(
  oidc: OidcConfig,
  md: ProviderMetadata,
  code: string,
  verifier: string,
): Promise<{ idToken: string; accessToken?: string }> {
  clientSecret ??= secretReader(oidc.clientSecret, 'the single sign-on client secret');
  const secret = clientSecret();
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: oidc.redirectUrl, code_verifier: verifier });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  // client_secret_basic unless the provider takes only client_secret_post (RFC 6749 2.3.1: both parts form-encoded).
  const methods = md.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (methods.includes('client_secret_basic') || !methods.includes('client_secret_post')) {
    const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${enc(oidc.clientId)}:${enc(await secret)}`).toString('base64')}`;
  } else {
    form.set('client_id', oidc.clientId);
    form.set('client_secret', await secret);
  }
  const { status, body } = await fetchJson(md.token_endpoint, { method: 'POST', headers, body: form.toString() }, 'the code exchange');
  if (status !== 200) {
    const error = typeof body.error === 'string' ? body.error.slice(0, 100) : `status ${status}`;
    const reason = error === 'invalid_grant' ? 'code_refused' : 'token_endpoint';
    throw new SsoError(`The identity provider refused to complete the sign-in (${error}); please start again`, reason);
  }
  if (typeof body.id_token !== 'string') throw new SsoError('The identity provider sent no ID token', 'id_token');
  return { idToken: body.id_token, accessToken: typeof body.access_token === 'string' ? body.access_token : undefined };
}

/**
 * Verifies an ID token (OpenID Connect Core 1.0, 3.1.3.7): signature by a key of the provider's JWKS
 * with one of `algorithms`, issuer, audience, authorized party, lifetime, subject and nonce.
 */
export async function verifyIdToken(
  token: string,
  keys: JWTVerifyGetKey,
  expected: { issuer: string; clientId: string; nonce: string; algorithms: string[]; now?: number },
): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: expected.issuer,
      audience: expected.clientId,
      algorithms: expected.algorithms,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'nonce'],
      currentDate: expected.now === undefined ? undefined : new Date(expected.now),
      clockTolerance: 30,
    }));
  } catch (err) {
    const detail =
      err instanceof joseErrors.JWTExpired
        ? 'it has expired'
        : err instanceof joseErrors.JWTClaimValidationFailed
          ? `its "${err.claim}" claim is wrong`
          : err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey
            ? "its signature is not by the provider's keys"
            : err instanceof joseErrors.JOSEAlgNotAllowed
              ? 'it is signed with an algorithm that is not accepted'
              : 'it cannot be read';
    throw new SsoError(`The identity provider's ID token was refused: ${detail}`, 'id_token', { cause: err });
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== expected.clientId) {
    throw new SsoError('The identity provider\'s ID token was refused: its "azp" claim is wrong', 'id_token');
  }
  if (typeof payload.nonce !== 'string' || !sameText(payload.nonce, expected.nonce)) {
    throw new SsoError('The identity provider\'s ID token was refused: its "nonce" claim is wrong', 'id_token');
  }
  if (typeof payload.sub !== 'string' || !payload.sub)
    throw new SsoError("The identity provider's ID token was refused: it names no subject", 'id_token');
  return payload;
}

/** The userinfo endpoint's claims, for the same subject (OpenID Connect Core 1.0, 5.3.2); anything else is refused. */
async function userinfo(endpoint: string, accessToken: string, subject: string): Promise<Record<string, unknown>> {
  const { status, body } = await fetchJson(
    endpoint,
    { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
    'its userinfo',
  );
  if (status !== 200) throw new SsoError(`The identity provider's userinfo answered ${status}`, 'userinfo');
  if (body.sub !== subject) throw new SsoError("The identity provider's userinfo is about someone else", 'userinfo');
  return body;
}
