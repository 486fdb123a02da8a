import httpSecurityHeaders from '@middy/http-security-headers';
import type { ApiMiddleware, ApiMiddlewareFn } from '../types';

/** Middy's own default (180 days, subdomains, preload), unchanged for deployed stages. */
const HSTS = 'max-age=15552000; includeSubDomains; preload';

/**
 * Middy's security headers (helmet's), with two of them decided here:
 *
 *   - Strict-Transport-Security only on a request that came over https. API Gateway and Lambda
 *     function URLs terminate TLS and say so in X-Forwarded-Proto; under `npm start` the local front
 *     door says `http`, and serverless-offline alone says nothing. HSTS over plain http is ignored by
 *     browsers (RFC 6797, section 8.1) and only tells a reader the answer came from somewhere else.
 *   - no Reporting-Endpoints: the service runs no report collector, and Middy writes the header empty
 *     when none is configured, which names nothing and is a malformed structured field.
 */
export function securityHeaders(): ApiMiddleware {
  // reportingEndpoints is an option of the middleware that its type declarations do not list yet.
  const options = { reportingEndpoints: false, strictTransportSecurity: false };
  const helmet = httpSecurityHeaders(options);
  const hsts = (request: Parameters<ApiMiddlewareFn>[0]) => {
    const response = request.response as { headers?: Record<string, unknown> } | undefined;
    if (!response?.headers || request.event.headers?.['x-forwarded-proto'] !== 'https') return;
    response.headers['Strict-Transport-Security'] = HSTS;
  };
  return {
    after: async (request) => {
      await helmet.after?.(request as never);
      hsts(request);
    },
    onError: async (request) => {
      await helmet.onError?.(request as never);
      hsts(request);
    },
  };
}
