import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { config } from '../../../core/config';
import { authorizeKey } from '../../keys/authorize';
import type { ApiEvent } from '../types';

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
 * the owner's team memberships.
 * With `prefetch`, the body's model lookup starts first and runs beside the key's (event.prefetched).
 */
export function authenticateKey(prefetch?: (model: string) => Promise<unknown>): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  return {
    before: async ({ event }) => {
      const model = prefetch ? modelOf(event) : undefined;
      if (model !== undefined && prefetch) {
        const started = prefetch(model);
        // Awaited by the handler; never an unhandled rejection when the guard refuses first.
        started.catch(() => undefined);
        event.prefetched = started;
      }
      const { key, user, memberships } = await authorizeKey(event.headers?.authorization);
      event.apiKey = key;
      event.user = user;
      event.memberships = memberships;
    },
  };
}

/**
 * Every /v1 answer, errors included, names its request (`x-request-id`, which the OpenAI clients
 * expose), so a client's report can be found in the logs.
 */
export function requestIdHeader(): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  const stamp: middy.MiddlewareFn<ApiEvent, APIGatewayProxyResultV2> = (request) => {
    const response = request.response as { headers?: Record<string, string> } | undefined;
    if (response && typeof response === 'object') response.headers = { ...response.headers, 'x-request-id': request.context.awsRequestId };
  };
  return { after: stamp, onError: stamp };
}
