import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { authorizeKey } from '../../keys/authorize';
import type { ApiEvent } from '../types';

/** The /v1 guard: an API key, never a login token (lib/keys/authorize.ts); sets the key and its owner. */
export function authenticateKey(): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  return {
    before: async ({ event }) => {
      const { key, user } = await authorizeKey(event.headers?.authorization);
      event.apiKey = key;
      event.user = user;
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
