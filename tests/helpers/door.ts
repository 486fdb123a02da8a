import { createServer, type IncomingMessage, type Server } from 'node:http';
import { call, type Handler } from './invoke';
import type { LambdaUrl } from '../../local/lambda-url';

/**
 * One loopback port in front of handlers called in process, for a real client SDK to talk to: each
 * route an API Gateway route (`handler`, its path parameters from `{name}` segments) or a function URL
 * (`url`, served in this process by local/lambda-url.ts), as CloudFront and API Gateway route them in
 * the deploy. The first route that matches the method and path serves the request.
 */
export interface DoorRoute {
  method: string;
  path: string;
  handler?: Handler;
  url?: LambdaUrl;
}

function match(route: DoorRoute, method: string, path: string): Record<string, string> | undefined {
  if (route.method !== method) return undefined;
  const want = route.path.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] as string;
    if (part.startsWith('{') && part.endsWith('}')) params[part.slice(1, -1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

const bodyOf = (req: IncomingMessage) =>
  new Promise<string>((done) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
  });

export async function startDoor(routes: DoorRoute[]): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://door');
    const method = req.method ?? 'GET';
    for (const route of routes) {
      const params = match(route, method, url.pathname);
      if (!params) continue;
      if (route.url) return void route.url.serve(req, res);
      void bodyOf(req)
        .then(async (body) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
          const out = await call(route.handler as Handler, {
            method,
            path: url.pathname,
            routeKey: `${route.method} ${route.path}`,
            pathParameters: params,
            headers,
            ...(body && { body }),
          });
          const answered = Object.fromEntries(Object.entries(out.headers).filter(([, value]) => value !== undefined));
          res.writeHead(out.status, answered).end(out.raw);
        })
        .catch((err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
