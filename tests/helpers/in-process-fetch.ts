/**
 * A `fetch` that answers from handlers in this process, for the official client SDKs (Anthropic's,
 * OpenAI's) in integration tests: the SDK builds its real requests and reads real responses (status,
 * headers, JSON or the whole event stream, as the HTTP API route answers a stream), without
 * serverless-offline. Routes are `METHOD /path`.
 */
import { call, type Handler } from './invoke';

export function inProcessFetch(routes: Record<string, Handler>): typeof fetch {
  return async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init.method ?? 'GET').toUpperCase();
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) return new Response(JSON.stringify({ error: `no route ${method} ${url.pathname}` }), { status: 404 });
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    // The SDKs send JSON text.
    const body = typeof init.body === 'string' ? init.body : undefined;
    const res = await call(handler, { method, path: url.pathname, headers, ...(body !== undefined && { body }) });
    return new Response(res.raw, { status: res.status, headers: res.headers });
  };
}
