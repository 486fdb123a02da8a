/**
 * A real, certified OpenID Provider on loopback: panva's oidc-provider (a devDependency), for the
 * tests (tests/setup/test-runtime.ts starts one per run) and for trying single sign-on under
 * `npm start -- --oidc-provider`. Not a mock: discovery, the authorization endpoint with its
 * login and consent pages (oidc-provider's development interactions), PKCE (required here for every
 * client), the token endpoint with client_secret_basic, the JWKS, userinfo, one-time codes: all of it
 * is oidc-provider's own.
 *
 * Who signs in. The login page takes any login and password. The login is the account: `name` or
 * `name:group,group` (the groups claim, in the `groups` scope), with e-mail `name@example.test`
 * (verified), preferred_username and name `name`. Tests register accounts with exactly the claims
 * they need (`POST /_dev/accounts` {sub, email?, email_verified?, preferred_username?, name?,
 * groups?}), which then win over that default.
 *
 * What cannot be produced by an honest provider (an ID token that expired, names another audience or
 * nonce, or is signed by a key the JWKS does not hold) is produced by one fault, armed per account
 * (`POST /_dev/faults` {sub, fault}): the next token response for that account has its ID token
 * re-signed with the provider's own key and the claim changed (or by a foreign key under the same
 * key id), exactly as a broken or hostile provider would send it. The control paths exist only on
 * this loopback server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWK } from 'jose';
import { keepIdleConnections } from './keep-alive';

interface DevAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  groups?: string[];
}

type IdTokenFault = 'expired' | 'wrong-audience' | 'wrong-nonce' | 'foreign-key';

export interface DevClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface LocalOidcProvider {
  issuer: string;
  close(): Promise<void>;
}

const FAULTS: IdTokenFault[] = ['expired', 'wrong-audience', 'wrong-nonce', 'foreign-key'];

/** The claims of a login: a registered account, or `name[:group,group]`. */
function accountClaims(accounts: Map<string, DevAccount>, login: string): DevAccount {
  const registered = accounts.get(login);
  if (registered) return registered;
  const [name = login, groups = ''] = login.split(':', 2);
  return {
    sub: login,
    email: `${name}@example.test`,
    email_verified: true,
    preferred_username: name,
    name,
    groups: groups.split(',').filter(Boolean),
  };
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      try {
        resolve(JSON.parse(text || '{}'));
      } catch {
        reject(new Error('The control body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/** oidc-provider 9 warns that Node 20 is not its LTS (it runs on it) and that its dev pages are for development: said once, here. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const { warn, info } = console;
  console.warn = () => undefined;
  console.info = () => undefined;
  try {
    return await work();
  } finally {
    Object.assign(console, { warn, info });
  }
}

export async function startOidcProvider(options: { port: number; clients: DevClient[]; host?: string }): Promise<LocalOidcProvider> {
  const host = options.host ?? '127.0.0.1';
  const issuer = `http://${host}:${options.port}`;
  const accounts = new Map<string, DevAccount>();
  const faults = new Map<string, IdTokenFault>();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: `dev-${randomBytes(4).toString('hex')}`, alg: 'RS256', use: 'sig' };
  const foreign = (await generateKeyPair('RS256')).privateKey;

  const provider = await quietly(async () => {
    const { default: Provider } = await import('oidc-provider');
    return new Provider(issuer, {
      clients: options.clients.map((c) => ({
        ...c,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      jwks: { keys: [jwk] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
      scopes: ['openid', 'email', 'profile', 'groups'],
      pkce: { required: () => true },
      ttl: { AuthorizationCode: 60, AccessToken: 600, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      features: { devInteractions: { enabled: true } },
      findAccount: (_ctx, sub) => ({
        accountId: sub,
        claims: () => {
          const { sub: _s, ...claims } = accountClaims(accounts, sub);
          return { sub, ...claims };
        },
      }),
    });
  });

  /** The token response with its ID token changed as the armed fault says. */
  const tamper = async (body: string): Promise<string> => {
    const tokens = JSON.parse(body) as { id_token?: string };
    if (!tokens.id_token) return body;
    const claims = decodeJwt(tokens.id_token);
    const fault = faults.get(String(claims.sub));
    if (!fault) return body;
    faults.delete(String(claims.sub));
    const now = Math.floor(Date.now() / 1000);
    const changed = { ...claims };
    if (fault === 'expired') Object.assign(changed, { iat: now - 7200, exp: now - 3600 });
    if (fault === 'wrong-audience') Object.assign(changed, { aud: 'another-client' });
    if (fault === 'wrong-nonce') Object.assign(changed, { nonce: 'not-the-nonce-sent' });
    const key = fault === 'foreign-key' ? foreign : privateKey;
    tokens.id_token = await new SignJWT(changed).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(key);
    return JSON.stringify(tokens);
  };

  const control = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const body = (await readJson(req)) as Partial<DevAccount & { fault: IdTokenFault }>;
    if (req.method !== 'POST' || typeof body.sub !== 'string' || !body.sub) return send(400, { error: 'POST a JSON body with sub' });
    if (path === '/_dev/accounts') {
      accounts.set(body.sub, { ...(body as DevAccount) });
      return send(200, { ok: true });
    }
    if (path === '/_dev/faults' && body.fault && FAULTS.includes(body.fault)) {
      faults.set(body.sub, body.fault);
      return send(200, { ok: true });
    }
    return send(404, { error: `unknown control ${path} (faults: ${FAULTS.join(', ')})` });
  };

  const callback = provider.callback();
  const server: Server = keepIdleConnections(
    createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] as string;
      if (path.startsWith('/_dev/')) {
        control(req, res, path).catch((err: unknown) => res.writeHead(400).end(String(err)));
        return;
      }
      if (req.method === 'POST' && path === '/token' && faults.size > 0) {
        // Koa sets the headers, then ends with the whole body: the body is changed on its way out.
        const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
        res.end = ((chunk?: unknown) => {
          if (!chunk || res.statusCode !== 200) return end(chunk);
          void tamper(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')).then((text) => {
            res.setHeader('content-length', Buffer.byteLength(text));
            end(text);
          });
          return res;
        }) as typeof res.end;
      }
      void callback(req, res);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
