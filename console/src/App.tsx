import { Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { ApiError, api, errorText, unwrap } from './api/client';
import {
  EXPIRED,
  endSession,
  getSession,
  startSession,
  storedToken,
  storedUser,
  subscribe,
  nextPage,
  takeSsoHandoff,
  tokenExpiry,
  updateUser,
} from './api/session';
import { Spinner } from './components/ui';
import { Login } from './pages/Login';
import { PAGES, allowed, preloadAll } from './pages';

function useSession() {
  return useSyncExternalStore(subscribe, getSession);
}

/**
 * On load, a token kept in this tab is checked with the server. With the user it was last seen as,
 * the console is shown at once and the check runs alongside (a refused token ends the session with
 * the same words as any 401); without, the check comes first.
 */
function useRestoredSession(): 'checking' | 'done' {
  // A single sign-on that just finished hands over its token (or its reason) in the address's fragment.
  const [handoff] = useState(takeSsoHandoff);
  const [state, setState] = useState<'checking' | 'done'>(() => {
    if (handoff.error) endSession(`Single sign-on failed: ${handoff.error}`);
    return handoff.token || (storedToken() && !getSession()) ? 'checking' : 'done';
  });
  useEffect(() => {
    if (state !== 'checking') return;
    const token = handoff.token ?? (storedToken() as string);
    if (tokenExpiry(token) <= Date.now()) {
      // Say so: the person was logged in and the token ran out while the tab was closed or asleep.
      endSession(EXPIRED);
      setState('done');
      return;
    }
    const known = handoff.token ? null : storedUser();
    if (known) {
      startSession(token, known);
      setState('done');
    }
    unwrap(api.GET('/api/auth/validate', { headers: { Authorization: `Bearer ${token}` } }))
      .then((res) => (known ? updateUser(res.user) : startSession(token, res.user)))
      // A 401 has already ended the session, in the service's words (api/client.ts).
      .catch((err: unknown) => {
        if (!(err instanceof ApiError && err.status === 401))
          endSession(`Your session could not be checked (${errorText(err)}). Please log in again.`);
      })
      .finally(() => setState('done'));
  }, [state, handoff]);
  return state;
}

export function App() {
  const session = useSession();
  const restoring = useRestoredSession();
  const [location, navigate] = useLocation();
  const search = useSearch();

  // The login page remembers where the person was going, and goes there afterwards.
  useEffect(() => {
    if (restoring === 'checking') return;
    if (!session && location !== '/login')
      navigate(`/login?next=${encodeURIComponent(search ? `${location}?${search}` : location)}`, { replace: true });
  }, [session, location, search, restoring, navigate]);

  if (restoring === 'checking') return <Spinner label="Restoring your session…" />;
  if (!session) {
    return (
      <main id="main" className="login-main">
        <Login />
      </main>
    );
  }
  return <Shell />;
}

function NavLinks({ group }: { group: 'main' | 'admin' }) {
  const session = useSession();
  const [location] = useLocation();
  if (!session) return null;
  const items = PAGES.filter((p) => p.nav?.group === group && allowed(p, session.user.role));
  if (items.length === 0) return null;
  return (
    <ul>
      {items.map((p) => {
        const href = p.nav?.href ?? p.path;
        const current = location === href || location.startsWith(`${href}/`);
        return (
          <li key={href}>
            <Link href={href} aria-current={current ? 'page' : undefined}>
              {p.nav?.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

function Shell() {
  const session = useSession();
  const role = session?.user.role;
  // The other pages load while the person looks at the first one, so that moving on is immediate.
  useEffect(() => {
    if (role) preloadAll(role);
  }, [role]);
  if (!session) return null;
  const logout = () => {
    // The token is forgotten here first, whatever happens next; the server keeps no session, so its
    // answer changes nothing and is not waited for.
    const token = session.token;
    endSession('You have logged out.');
    void api.POST('/api/auth/logout', { headers: { Authorization: `Bearer ${token}` } }).catch(() => undefined);
  };
  const hasAdmin = PAGES.some((p) => p.nav?.group === 'admin' && allowed(p, session.user.role));
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/models" className="brand">
          Model Operations
        </Link>
        <nav aria-label="Main">
          <NavLinks group="main" />
        </nav>
        {hasAdmin ? (
          <nav aria-label="Admin" className="admin-nav">
            <span className="nav-heading" aria-hidden="true">
              Admin
            </span>
            <NavLinks group="admin" />
          </nav>
        ) : null}
        <div className="who">
          <span>
            {session.user.name || session.user.username} <span className="role">({session.user.role.replace('_', ' ')})</span>
          </span>
          <button type="button" className="small" onClick={logout}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Spinner label="Loading the page…" />}>
          <Switch>
            <Route path="/">
              <Redirect to="/models" replace />
            </Route>
            <Route path="/login">
              <AfterLogin />
            </Route>
            {PAGES.filter((p) => allowed(p, session.user.role)).map((p) => (
              <Route key={p.path} path={p.path} component={p.component} />
            ))}
            <Route>
              <NotFound />
            </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}

/** A signed-in person on the login page (a single sign-on just landed there): on to where they were going. */
function AfterLogin() {
  const search = useSearch();
  return <Redirect to={nextPage(search)} replace />;
}

function NotFound() {
  const session = getSession();
  const [location] = useLocation();
  const exists = PAGES.find((p) => location.startsWith((p.nav?.href ?? p.path).split('/:')[0] as string));
  return (
    <section>
      <h1>{exists && session ? 'Not available to your role' : 'Page not found'}</h1>
      <p>
        {exists ? 'Your role does not give access to this page.' : 'There is no page at this address.'} <Link href="/models">Go to Models</Link>.
      </p>
    </section>
  );
}
