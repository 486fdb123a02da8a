/**
 * A browser without a screen, for the single sign-on tests: follows nothing by itself (every
 * redirect is a step the test sees), keeps cookies per host and path as a browser does (Set-Cookie
 * with Path, Max-Age=0 deletes), and signs in at the loopback OpenID provider (local/oidc-provider.ts)
 * through its own login and consent pages.
 */
interface Cookie {
  value: string;
  path: string;
}

export class CookieJar {
  private readonly byHost = new Map<string, Map<string, Cookie>>();

  /** The Cookie header a browser would send to `url`. */
  header(url: string): string {
    const { hostname, pathname } = new URL(url);
    const cookies = [...(this.byHost.get(hostname) ?? new Map<string, Cookie>()).entries()];
    return cookies
      .filter(([, c]) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  absorb(url: string, setCookies: string[]): void {
    const { hostname } = new URL(url);
    const jar = this.byHost.get(hostname) ?? new Map<string, Cookie>();
    this.byHost.set(hostname, jar);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const attr = (n: string) => attributes.find((a) => a.toLowerCase().startsWith(`${n.toLowerCase()}=`))?.split('=')[1];
      const expired = attr('Max-Age') === '0' || (attr('Expires') !== undefined && Date.parse(attr('Expires') as string) < Date.now());
      if (expired || value === '') jar.delete(name);
      else jar.set(name, { value, path: attr('Path') ?? '/' });
    }
  }

  /** The value of a cookie for a host, if the jar holds one. */
  get(url: string, name: string): string | undefined {
    return this.byHost.get(new URL(url).hostname)?.get(name)?.value;
  }
}

/** One request as a browser sends it: its cookies, no automatic redirect; the answer's cookies kept. */
export async function visit(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string>; cookie?: string } = {}) {
  const headers: Record<string, string> = {};
  const cookie = init.cookie ?? jar.header(url);
  if (cookie) headers.cookie = cookie;
  let body: string | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  jar.absorb(url, res.headers.getSetCookie());
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location, url).href : undefined, text: await res.text(), headers: res.headers };
}

/**
 * From the provider's authorization URL to the redirect back to the service: the login page (any
 * password), the consent page, and every redirect between them. Returns the callback URL, not
 * followed, so that a test may send it as it is, changed, or twice.
 */
export async function signInAtProvider(jar: CookieJar, authorizeUrl: string, login: string): Promise<string> {
  let url = authorizeUrl;
  for (let step = 0; step < 12; step++) {
    const page = await visit(jar, url);
    if (page.location) {
      if (!page.location.startsWith(new URL(authorizeUrl).origin)) return page.location;
      url = page.location;
      continue;
    }
    if (page.status !== 200) throw new Error(`the provider answered ${page.status} at ${url}: ${page.text.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
    const prompt = /name="prompt" value="(\w+)"/.exec(page.text)?.[1];
    if (!action || !prompt) throw new Error(`no form on the provider's page ${url}: ${page.text.slice(0, 500)}`);
    const form: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any-password' } : { prompt };
    const submitted = await visit(jar, new URL(action, url).href, { form });
    if (!submitted.location) throw new Error(`the provider's ${prompt} form answered ${submitted.status}: ${submitted.text.slice(0, 500)}`);
    url = submitted.location;
  }
  throw new Error('the provider did not redirect back within 12 steps');
}

/** Registers an account at the loopback provider with exactly these claims, or arms an ID token fault for it. */
export async function providerControl(issuer: string, what: 'accounts' | 'faults', body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${issuer}/_dev/${what}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`provider control ${what}: ${res.status} ${await res.text()}`);
}
