import { config } from '../../../core/config';
import { authorizeKey, wellFormedKey } from '../../keys/authorize';
import type { ApiEvent, ApiMiddleware, ApiMiddlewareFn } from '../types';

/** The body's `model`, read without failing: the real parse and check come after the guard. */
function modelOf(event: ApiEvent): string | undefined {
  if (!event.body || event.isBase64Encoded || event.body.length > config.http.maxBodyBytes) return undefined;
  try {
    const model = (JSON.parse(event.body) as { model?: unknown } | null)?.model;
    return typeof model === 'string' && model.length > 0 && model.length <= 256 ? model : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The /v1 guard: an API key, never a login token (lib/keys/authorize.ts); sets the key, its owner and
 * the owner's team memberships. `apiKeyHeader`: the route also takes the key in x-api-key
 * (Anthropic's clients send it there).
 * With `prefetch`, the body's model lookup runs beside the key's (`state.prefetched`), but only once the
 * key is well formed: a request with no key, a login token or garbage is refused before any read, so
 * unauthenticated traffic costs the table nothing.
 */
export function authenticateKey(options: { apiKeyHeader?: boolean; prefetch?: (model: string) => Promise<unknown> } = {}): ApiMiddleware {
  const { prefetch } = options;
  return {
    before: async ({ event, context: { state } }) => {
      const credential = wellFormedKey({
        authorization: event.headers?.authorization,
        ...(options.apiKeyHeader && { apiKey: event.headers?.['x-api-key'], acceptsApiKeyHeader: true }),
      });
      const model = prefetch ? modelOf(event) : undefined;
      if (model !== undefined && prefetch) {
        const started = prefetch(model);
        // Awaited by the handler; never an unhandled rejection when the guard refuses first.
        started.catch(() => undefined);
        state.prefetched = started;
      }
      const { key, user, memberships } = await authorizeKey(credential);
      state.apiKey = key;
      state.user = user;
      state.memberships = memberships;
    },
  };
}

/**
 * Every /v1 answer, errors included, names its request (`x-request-id`, which the OpenAI clients
 * expose; Anthropic's read `request-id`), so a client's report can be found in the logs.
 */
export function requestIdHeader(names: string[] = ['x-request-id']): ApiMiddleware {
  const stamp: ApiMiddlewareFn = (request) => {
    const response = request.response as { headers?: Record<string, string> } | undefined;
    const id = request.context.awsRequestId;
    if (response && typeof response === 'object') response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, id])) };
  };
  return { after: stamp, onError: stamp };
}
