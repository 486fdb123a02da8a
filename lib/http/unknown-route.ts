import { NotFound } from '../errors';
import type { ErrorShape } from './middlewares/error-responder';
import type { ApiEvent } from './types';

/**
 * What a request for a route that does not exist gets (API Gateway's $default route,
 * functions/system/not-found.ts): a 404 in the error shape of the prefix it was sent to. Under /v1 that
 * is OpenAI's, as OpenAI answers an unknown URL (status 404, type invalid_request_error, code
 * unknown_url), so an OpenAI client raises its NotFoundError with a readable message; under /bedrock
 * Bedrock's (an AWS SDK raises ResourceNotFoundException); everywhere else the spec's.
 */

const GATEWAY_ROUTES = 'GET /v1/models, POST /v1/chat/completions, POST /v1/embeddings, POST /v1/responses and POST /v1/messages';

const isGateway = (path: string) => path === '/v1' || path.startsWith('/v1/');
const isBedrock = (path: string) => path === '/bedrock' || path.startsWith('/bedrock/');

export function unknownRouteShape(event: ApiEvent): ErrorShape {
  return isGateway(event.rawPath) ? 'openai' : isBedrock(event.rawPath) ? 'bedrock' : 'standard';
}

export function unknownRoute(event: ApiEvent): NotFound {
  const route = `${event.requestContext.http.method} ${event.rawPath}`;
  if (isGateway(event.rawPath)) {
    return new NotFound(`Unknown request URL: ${route}. Please check the URL for typos; this gateway serves ${GATEWAY_ROUTES}`, {
      code: 'unknown_url',
    });
  }
  if (isBedrock(event.rawPath)) {
    return new NotFound(
      `Unknown request URL: ${route}. This door serves POST /bedrock/model/{modelId}/converse, /converse-stream, /invoke, /invoke-with-response-stream and /count-tokens`,
    );
  }
  return new NotFound('Route not found', route);
}
