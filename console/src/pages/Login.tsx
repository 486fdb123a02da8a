import { useEffect, useState, useSyncExternalStore, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { ApiError, api, unwrap } from '../api/client';
import { useQuery } from '../api/hooks';
import { clearNotice, getNotice, nextPage, startSession, startSso, subscribe } from '../api/session';
import { ErrorText, Field } from '../components/ui';
import { preloadPage } from '../pages';

export function Login() {
  const notice = useSyncExternalStore(subscribe, getNotice);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);
  const search = useSearch();
  const [, navigate] = useLocation();
  const target = nextPage(search);
  // How one may log in here: the password form (unless turned off) and single sign-on (when configured).
  const ways = useQuery(() => unwrap(api.GET('/api/auth/config')), []);
  const ssoUrl = ways.data?.sso.login_url ? `${ways.data.sso.login_url}${target !== '/models' ? `?next=${encodeURIComponent(target)}` : ''}` : null;
  useEffect(() => {
    document.title = 'Log in · Model Operations';
    // The page after login loads while the person types.
    preloadPage(target);
  }, [target]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (!username.trim() || !password) {
      setError(new ApiError('Enter your username or e-mail and your password.', 400));
      return;
    }
    setPending(true);
    try {
      const res = await unwrap(api.POST('/api/auth/login', { body: { username: username.trim(), password } }));
      startSession(res.token, res.user);
      navigate(target, { replace: true });
    } catch (err) {
      setError(err);
      setPassword('');
    } finally {
      setPending(false);
    }
  };

  return (
    <section className="login">
      <h1>Model Operations</h1>
      <p className="lead">Log in to deploy, watch and chat with your models.</p>
      {notice ? (
        <p className="notice" role="status">
          {notice}{' '}
          <button type="button" className="link" onClick={clearNotice} aria-label="Dismiss this message">
            Dismiss
          </button>
        </p>
      ) : null}
      {ssoUrl ? (
        <p className="sso">
          <a
            className="button primary"
            href={ssoUrl}
            onClick={(e) => {
              e.preventDefault();
              startSso(ssoUrl);
            }}
          >
            Log in with SSO
          </a>
        </p>
      ) : null}
      {ssoUrl && ways.data?.password_login ? (
        <p className="divider" aria-hidden="true">
          or
        </p>
      ) : null}
      {ways.data?.password_login === false ? null : (
        <form onSubmit={submit} noValidate aria-describedby={error ? 'login-error' : undefined}>
          <Field label="Username or e-mail">
            {(id) => (
              <input
                id={id}
                name="username"
                autoComplete="username"
                value={username}
                onChange={(e) => setUsername(e.target.value)}
                required
                autoFocus
              />
            )}
          </Field>
          <Field label="Password">
            {(id) => (
              <input
                id={id}
                name="password"
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                required
              />
            )}
          </Field>
          <ErrorText error={error} id="login-error" />
          <button type="submit" className={ssoUrl ? undefined : 'primary'} disabled={pending}>
            {pending ? 'Logging in…' : 'Log in'}
          </button>
        </form>
      )}
    </section>
  );
}
