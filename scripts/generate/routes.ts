/**
 * The routes of serverless.yml (its functions/<area>/functions.yml files) and what each handler declares
 * of its access: the facts the contract takes from the code instead of repeating them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface Route {
  /** The function's name in serverless.yml, which is the operation's id. */
  functionName: string;
  method: string;
  /** The path template as OpenAPI writes it ({proxy+} becomes {proxy}). */
  path: string;
  /** The handler's file, relative to the root. */
  handlerFile: string;
  /** functions/<area>/ */
  area: string;
}

/** Every HTTP API route but the $default one, in the order serverless.yml lists them. */
export function serverlessRoutes(root: string): Route[] {
  const main = readFileSync(join(root, 'serverless.yml'), 'utf8');
  const files = [...main.matchAll(/\$\{file\((functions\/[^)]+\/functions\.yml)\)\}/g)].map((m) => m[1] as string);
  const routes: Route[] = [];
  for (const file of files) {
    const functions = (parse(readFileSync(join(root, file), 'utf8')) ?? {}) as Record<string, { handler: string; events?: { httpApi?: unknown }[] }>;
    for (const [functionName, fn] of Object.entries(functions)) {
      const handlerFile = `${String(fn.handler).replace(/\.[^.]+$/, '')}.ts`;
      const area = handlerFile.split('/')[1] as string;
      for (const event of fn.events ?? []) {
        const api = event.httpApi as { method?: string; path?: string } | string | undefined;
        if (api === undefined || api === '*' || (typeof api === 'object' && api.path === '*')) continue;
        if (typeof api !== 'object') continue;
        const path = String(api.path).replace(/\{([^}+]+)\+\}/g, '{$1}');
        routes.push({ functionName, method: String(api.method).toLowerCase(), path, handlerFile, area });
      }
    }
  }
  return routes;
}

const ROLES_FOR_AUTH: Record<string, string[]> = {
  none: [],
  user: ['user', 'admin', 'super_admin'],
  admin: ['admin', 'super_admin'],
  super_admin: ['super_admin'],
};

/** Who may call a handler, as it declares it (lib/http/endpoint.ts, public-endpoint.ts, key-endpoint.ts). */
export interface Access {
  security: Record<string, string[]>[];
  /** The roles allowed; absent for the /v1 endpoints, which take an API key and no role. */
  roles?: string[];
  /** The error dialect a public endpoint declares (`errorShape: 'message'`), if any. */
  errorShape?: string;
}

export function accessOf(handlerSource: string): Access {
  if (/\bkeyEndpoint\(/.test(handlerSource)) return { security: [{ apiKeyAuth: [] }] };
  const levels = new Set([...handlerSource.matchAll(/\bauth:\s*'(none|user|admin|super_admin)'/g)].map((m) => m[1] as string));
  if (/\bpublicEndpoint\(/.test(handlerSource)) levels.add('none');
  if (levels.size !== 1) throw new Error(`a handler must declare one auth level, found ${JSON.stringify([...levels])}`);
  const roles = ROLES_FOR_AUTH[[...levels][0] as string] as string[];
  const errorShape = /\berrorShape:\s*'(\w+)'/.exec(handlerSource)?.[1];
  return { security: roles.length === 0 ? [] : [{ bearerAuth: [] }], roles, ...(errorShape ? { errorShape } : {}) };
}

/** The request schemas a handler declares (`body: CreateUserBody`), by where it takes them from. */
export function requestSchemasOf(handlerSource: string): Partial<Record<'body' | 'query' | 'path', { name: string; module: string }>> {
  const out: Partial<Record<'body' | 'query' | 'path', { name: string; module: string }>> = {};
  for (const part of ['body', 'query', 'path'] as const) {
    const name = new RegExp(`\\b${part}:\\s*([A-Z]\\w*)`).exec(handlerSource)?.[1];
    if (!name) continue;
    const from = new RegExp(`import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}\\s*from\\s*'[./]*generated/checks/([\\w-]+)'`).exec(handlerSource)?.[1];
    // A schema private to its handler (login's) is not shown from TypeBox.
    if (!from) continue;
    out[part] = { name, module: from === 'http' ? 'lib/http/schemas.ts' : `functions/${from}/schemas.ts` };
  }
  return out;
}
