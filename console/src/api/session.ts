/**
 * The session: the bearer token from POST /api/auth/login and the user it belongs to.
 *
 * The token lives in this tab's sessionStorage (and in memory): it survives a reload but not the tab,
 * is not shared with other tabs, and is never in a cookie, so no other site can make the browser
 * send it (no CSRF). Script on this origin could read it; the Content-Security-Policy is what keeps
 * foreign script out (docs/console.md, the threat model).
 *
 * The token's `exp` claim is read (not verified: the server does that) to end the session when it
 * expires, so a person is told rather than meeting errors; any 401 to an authenticated call ends it
 * the same way.
 */
import type { components } from '../../../generated/console/api';

export type User = components['schemas']['User'];
export type Role = User['role'];

interface Session {
  token: string;
  user: User;
  expiresAt: number;
}

const KEY = 'model-ops.token';
// The user as last validated: shown at once on a reload while the token is checked again.
const USER_KEY = 'model-ops.user';
let current: Session | null = null;
let notice: string | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const getSession = () => current;
export const getNotice = () => notice;

/** Milliseconds since the epoch at which the token expires; 0 when it cannot be read. */
export function tokenExpiry(token: string): number {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storedUser(): User | null {
  try {
    return JSON.parse(sessionStorage.getItem(USER_KEY) ?? 'null') as User | null;
  } catch {
    return null;
  }
}

export function startSession(token: string, user: User): void {
  const expiresAt = tokenExpiry(token);
  current = { token, user, expiresAt };
  notice = null;
  try {
    sessionStorage.setItem(KEY, token);
    sessionStorage.setItem(USER_KEY, JSON.stringify(user));
  } catch {
    // Storage may be disabled; the session then lasts until the page is left.
  }
  clearTimeout(timer);
  // setTimeout holds at most about 24.8 days; a token lives 24 hours.
  timer = setTimeout(() => expireSession(), Math.max(0, expiresAt - Date.now()));
  emit();
}

export function updateUser(user: User): void {
  if (!current) return;
  current = { ...current, user };
  try {
    sessionStorage.setItem(USER_KEY, JSON.stringify(user));
  } catch {
    // not kept
  }
  emit();
}

export function endSession(message: string | null = null): void {
  clearTimeout(timer);
  current = null;
  notice = message;
  try {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(USER_KEY);
  } catch {
    // nothing stored
  }
  emit();
}

export const EXPIRED = 'Your session has expired. Please log in again.';

const DEACTIVATED = 'Your account has been deactivated. Ask an administrator.';

/** Ends the session after a 401; `reason` is the service's words, when it gave any. */
export function expireSession(reason?: string): void {
  if (!current && !storedToken()) return;
  endSession(reason && /deactivated/i.test(reason) ? DEACTIVATED : EXPIRED);
}

export function clearNotice(): void {
  notice = null;
  emit();
}

export const isAdmin = (role: Role | undefined) => role === 'admin' || role === 'super_admin';

/**
 * Single sign-on's hand-off, and what keeps it from being forged (login CSRF: a link carrying someone
 * else's token would put the person to work inside that account; one carrying `#sso_error=` would log
 * them out with words of the sender's choosing).
 *
 * "Log in with SSO" stores a fresh random nonce in this tab's sessionStorage and passes it to
 * GET /api/auth/oidc/login; the service keeps it in the flow's encrypted cookie and its callback sends
 * the browser back to /login with the token (`#sso_token=`) or the reason it refused (`#sso_error=`),
 * and the nonce (`&sso_nonce=`), in the URL fragment, which no server ever sees. The hand-off is
 * taken only when its nonce is the one stored (which is then cleared: it works once); any other is
 * ignored. Either way it is taken out of the address bar and the history entry at once, so a reload,
 * a bookmark or a shared screenshot of the address does not carry it.
 */
const SSO_NONCE_KEY = 'model-ops.sso-nonce';
let handoff: { token?: string; error?: string } | undefined;

/** Leaves for the identity provider through `loginUrl` (the service's, with `next` if any), with a nonce of this tab's. */
export function startSso(loginUrl: string): void {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const nonce = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  // Without sessionStorage no hand-off can be matched: the sign-in would come back to nothing.
  sessionStorage.setItem(SSO_NONCE_KEY, nonce);
  const url = new URL(loginUrl, location.origin);
  url.searchParams.set('nonce', nonce);
  location.assign(`${url.pathname}${url.search}`);
}

export function takeSsoHandoff(): { token?: string; error?: string } {
  if (handoff) return handoff;
  const fragment = new URLSearchParams((globalThis.location?.hash ?? '').slice(1));
  const token = fragment.get('sso_token');
  const error = fragment.get('sso_error');
  if (token === null && error === null) return (handoff = {});
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  let expected: string | null = null;
  try {
    expected = sessionStorage.getItem(SSO_NONCE_KEY);
    sessionStorage.removeItem(SSO_NONCE_KEY);
  } catch {
    // No storage: nothing was started here.
  }
  if (expected && fragment.get('sso_nonce') === expected) {
    handoff = token !== null ? { token } : { error: error as string };
  } else if (expected) {
    // This tab did start a sign-in, and what came back is not its answer (an expired flow, or
    // someone else's link): said in the console's words, never in the fragment's.
    handoff = { error: 'The sign-in that came back is not the one this tab started; please try again' };
  } else {
    handoff = {};
  }
  return handoff;
}

/** Where the login page goes afterwards: `next` when it is a page of the console, else the models. */
export function nextPage(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') && next !== '/login' ? next : '/models';
}
