import { PricingClient } from '@aws-sdk/client-pricing';
import { config } from '../../core/config';
import { http1ClientConfig, resolveAwsOptions } from '../platforms/clients';
import { traced } from '#tracing';

/**
 * The AWS Price List Query API client, built once per cold start the way the platform clients are
 * (lib/platforms/clients.ts: credentials, endpoint override, bounded retries, timeouts).
 *
 * The Price List API is served from a few regions only (us-east-1, eu-central-1, ap-south-1) and
 * prices every region from there, so it is asked in us-east-1 - except when the endpoint is
 * overridden (the local emulator), where the service's own region is kept.
 */
const PRICE_LIST_REGION = 'us-east-1';

/** Built once per cold start; marked pure so that the functions that only read the price table drop it. */
export const pricingClient = /* @__PURE__ */ traced(
  /* @__PURE__ */ new PricingClient(
    http1ClientConfig(resolveAwsOptions({ region: config.cloud.endpoint ? config.cloud.region : PRICE_LIST_REGION })),
  ),
);
