import { validateResponse } from './contract';

/**
 * A small HTTP client for the e2e suites: every call goes over loopback to serverless-offline, and
 * every response is checked against the API contract (docs/openapi.yaml, see ./contract.ts): an
 * undocumented status or a body that does not match its schema fails the calling test.
 */
export const BASE = () => process.env.E2E_BASE_URL as string;

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  raw: string;
}

export async function http(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${BASE()}${path}`, { method, headers, body });
  const raw = await res.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // keep the text
  }
  // CORS preflights are answered by API Gateway's CORS configuration, not by an operation.
  if (method.toUpperCase() !== 'OPTIONS') validateResponse(method, path, res.status, parsed);
  assertNoSecrets(method, path, raw);
  return { status: res.status, headers: res.headers, body: parsed, raw };
}

const BCRYPT_HASH = /\$2[aby]\$\d\d\$/;

/** No response anywhere may carry a password hash or an unmasked secret: checked on every e2e response. */
function assertNoSecrets(method: string, path: string, raw: string): void {
  const secrets = [
    process.env.JWT_SECRET,
    process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY,
    process.env.SERVICE_CLOUD_ACCESS_KEY_ID,
    process.env.HOSTED_API_KEY,
    process.env.E2E_ADMIN_PASSWORD,
    process.env.E2E_OIDC_CLIENT_SECRET,
  ];
  if (BCRYPT_HASH.test(raw)) throw new Error(`${method} ${path} returned a password hash`);
  for (const secret of secrets) {
    if (secret && raw.includes(secret)) throw new Error(`${method} ${path} returned an unmasked secret`);
  }
}

export async function loginAsAdmin(): Promise<string> {
  const res = await http('POST', '/api/auth/login', { body: { username: process.env.E2E_ADMIN_USERNAME, password: process.env.E2E_ADMIN_PASSWORD } });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${res.raw}`);
  return res.body.token as string;
}
