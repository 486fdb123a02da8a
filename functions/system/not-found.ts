import { NotFound } from '../../lib/errors';
import { publicEndpoint } from '../../lib/http/public-endpoint';

/** API Gateway's $default route: unknown paths get the spec's error shape instead of the gateway's. */
export const handler = publicEndpoint({ ignoreInput: true }, async ({ event }) => {
  throw new NotFound('Route not found', `${event.requestContext.http.method} ${event.rawPath}`);
});
