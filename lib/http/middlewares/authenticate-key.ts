import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { authorizeKey } from '../../keys/authorize';
import type { ApiEvent } from '../types';

/**
 * The /v1 guard: an API key, never a login token (lib/keys/authorize.ts); sets the key and its owner.
 * `apiKeyHeader`: the route also takes the key in x-api-key (Anthropic's clients send it there).
 */
export function authenticateKey(options: { apiKeyHeader?: boolean } = {}): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  return {
    before: async ({ event }) => {
      const { key, user } = await authorizeKey({
        authorization: event.headers?.authorization,
        ...(options.apiKeyHeader && { apiKey: event.headers?.['x-api-key'], acceptsApiKeyHeader: true }),
      });
      event.apiKey = key;
      event.user = user;
    },
  };
}

/**
 * Every /v1 answer, errors included, names its request (`x-request-id`, which the OpenAI clients
 * expose; Anthropic's read `request-id`), so a client's report can be found in the logs.
 */
export function requestIdHeader(names: string[] = ['x-request-id']): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  const stamp: middy.MiddlewareFn<ApiEvent, APIGatewayProxyResultV2> = (request) => {
    const response = request.response as { headers?: Record<string, string> } | undefined;
    const id = request.context.awsRequestId;
    if (response && typeof response === 'object') response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, id])) };
  };
  return { after: stamp, onError: stamp };
}
