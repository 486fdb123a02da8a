import { publicEndpoint } from '../../lib/http/public-endpoint';
import { unknownRoute, unknownRouteShape } from '../../lib/http/unknown-route';

/** API Gateway's $default route: unknown paths get the service's error shape (OpenAI's under /v1) instead of the gateway's. */
export const handler = publicEndpoint({ ignoreInput: true, errorShape: unknownRouteShape }, async ({ event }) => {
  throw unknownRoute(event);
});
