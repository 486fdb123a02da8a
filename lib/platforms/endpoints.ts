/**
 * The endpoint lifecycle of the platforms that run endpoints (traits `lifecycle: 'endpoint'`): deploy,
 * describe, restart, delete, a guardrail's stop and start, listing and tags, and the endpoints'
 * metrics. Domain code reaches them here by platform name, as it reaches chat through chat.ts, and
 * never imports a platform's folder. Apart from registry.ts so that asking a platform's traits bundles
 * no SDK client; each adapter is built behind a `@__PURE__` call, so a function that never asks for
 * metrics drops the CloudWatch client.
 */
import { dedicatedEndpoints } from './dedicated/endpoints';
import { dedicatedMetrics } from './dedicated/metrics';
import { traitsOf } from './registry';
import type { DedicatedEndpoints, DedicatedMetrics, PlatformName } from './types';

// Two tables, not one: a function that only controls endpoints (the chat path describes them) must not
// bundle the metrics client by way of a shared object.
const LIFECYCLES: Partial<Record<PlatformName, DedicatedEndpoints>> = { dedicated: dedicatedEndpoints };
const METRICS: Partial<Record<PlatformName, DedicatedMetrics>> = { dedicated: dedicatedMetrics };

function registered<T>(table: Partial<Record<PlatformName, T>>, type: PlatformName): T {
  const adapter = traitsOf(type).lifecycle === 'endpoint' ? table[type] : undefined;
  // A platform whose traits say it runs endpoints registers them here (docs/architecture.md, Adding a platform).
  if (!adapter) throw new Error(`The ${type} platform runs no endpoints`);
  return adapter;
}

/** The endpoint operations of a platform that runs endpoints; throws for an always-on platform (a bug, never a request's fault). */
export const endpointsOf = (type: PlatformName): DedicatedEndpoints => registered(LIFECYCLES, type);

/** The CloudWatch figures of a platform's endpoints (latency, invocations, utilisation). */
export const endpointMetricsOf = (type: PlatformName): DedicatedMetrics => registered(METRICS, type);
