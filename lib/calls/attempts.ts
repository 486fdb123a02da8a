import { dimensionedMetric, logger } from '../../core/observability';
import type { Resource } from '../../tables/resources';
import { coolDown, type Cooldown, type Route, type RouteFailure } from '../../tables/routes';
import { reportedRates, reportingRates } from '../budgets/rate-limits';
import { NotInService, ServiceUnavailable, TooManyRequests, UpstreamError } from '../errors';
import { isCooling, orderTargets } from './choose';
import type { CallTarget } from './resolve';

/**
 * A call through a route (or straight to one resource): the fallback loop around the one metered call.
 *
 *   - The targets are tried in the route's order (lib/calls/choose.ts), those cooling down left out.
 *     Their cooldowns came with the targets' resource items in the call's one round of reads
 *     (lib/calls/resolve.ts). A cooldown is the route's: a direct call to a cooling resource is made
 *     as usual, and it neither reads nor sets one (nor does another route over the same resource).
 *   - Each attempt is a whole metered call of its own (`prepare`: access, capabilities, the holds on
 *     every budget and rate limit; `ask`: the model, or a stream's first event), so an attempt that
 *     fails has released its holds and recorded nothing before the next one starts (lib/calls/metered.ts
 *     `asked`, lib/calls/stream.ts `openStream`): a fallback never charges twice or leaves a hold.
 *   - An attempt that another target stands behind, on a route that falls over on throttling, is made
 *     with `failFastOnThrottling`: the platform's client does not retry a throttle itself
 *     (lib/platforms/clients.ts), so the next target is asked at once instead of the same throttled
 *     model after a backoff. The last target left, and a direct call, keep the client's retries.
 *   - Only failures before the first byte fall over: `ask` returns once a stream's first event is in
 *     hand, and what fails after that is the stream's to tell.
 *   - A target that throttled, timed out, was unavailable or not in service cools down for every
 *     function instance (one UpdateItem on the target's resource item, tables/routes.ts `coolDown`), written while
 *     the next target is asked: a fallback adds one platform call and no DynamoDB round trip before it.
 *   - When nothing is left: 429 when every target the caller may use is throttled, else 503, with
 *     Retry-After the shortest cooldown left.
 */

export interface Attempted<C, R> {
  call: C;
  result: R;
  /** The attempts made, the one that answered included (1: the first target answered). */
  attempts: number;
  route?: Route;
}

/** Why a platform call failed, in `retry_on`'s words; undefined for a failure no other target would fix (a bad request, refused credentials). */
const CONTEXT_WINDOW = /input is too long|maximum context length|context window|context length|must be <= \d+/i;

function failureOf(err: unknown): RouteFailure | undefined {
  if (err instanceof NotInService) return 'not_in_service';
  if (!(err instanceof UpstreamError)) return undefined;
  switch (err.failure) {
    case 'throttled':
      return 'throttled';
    case 'timed_out':
      return 'timeout';
    case 'not_ready':
    case 'missing':
      return 'not_in_service';
    case 'failed': {
      const status = err.upstreamStatus;
      if (status !== undefined && status >= 400 && status < 500) {
        return CONTEXT_WINDOW.test(`${err.message} ${err.details ?? ''}`) ? 'context_window' : undefined;
      }
      // 5xx, unreachable, an answer that could not be read.
      return 'unavailable';
    }
  }
}

/** The failures that say the target, not the request, is at fault: it is skipped by every caller for a while. */
const COOLS: ReadonlySet<RouteFailure> = new Set(['throttled', 'timeout', 'unavailable', 'not_in_service']);

/** How one attempt asks its platform (what the entry point adds to its request). */
export interface AttemptOptions {
  failFastOnThrottling?: true;
}

const FAIL_FAST: AttemptOptions = { failFastOnThrottling: true };

export async function attempt<C, R>(
  target: CallTarget,
  prepare: (resource: Resource, how: AttemptOptions) => Promise<C>,
  ask: (call: C) => Promise<R>,
): Promise<Attempted<C, R>> {
  if (!target.route) {
    const call = await prepare(target.resource, {});
    return { call, result: await ask(call), attempts: 1 };
  }
  const { route, resources } = target;
  const weights = new Map(route.targets.map((t) => [t.resource_id, t.weight]));
  const candidates = resources.map((r) => ({ target: r, id: r.id, weight: weights.get(r.id) ?? 1 }));
  const cooldowns: Record<string, Cooldown> = { ...target.cooldowns };
  const order = orderTargets(route.strategy, candidates, cooldowns, Date.now());
  const writes: Promise<void>[] = [];
  const failsOverOnThrottling = route.retry_on.includes('throttled');
  let last: unknown;
  try {
    for (const [i, resource] of order.entries()) {
      try {
        const call = await prepare(resource, failsOverOnThrottling && i < order.length - 1 ? FAIL_FAST : {});
        return { call, result: await ask(call), attempts: i + 1, route };
      } catch (err) {
        const failure = failureOf(err);
        if (!failure) throw err;
        dimensionedMetric('RouteFailovers', { failure }, 1);
        if (COOLS.has(failure)) {
          const cooldown = { until: Date.now() + route.cooldown_seconds * 1000, reason: failure };
          cooldowns[resource.id] = cooldown;
          writes.push(
            coolDown(route.id, resource.id, cooldown).catch((e: unknown) => logger.warn({ message: 'cooldown not written', error: e as Error })),
          );
        }
        if (!route.retry_on.includes(failure)) throw err;
        last = err;
      }
    }
  } finally {
    await Promise.all(writes);
  }
  // The last attempt's holds are what the caller is told of their rate windows.
  throw reportingRates(nothingLeft(route, resources, cooldowns, last), reportedRates(last));
}

/** Every target the caller may use is cooling down or has just failed: 429 if all throttled, else 503, after the shortest cooldown. */
function nothingLeft(route: Route, resources: Resource[], cooldowns: Record<string, Cooldown>, last: unknown): unknown {
  const now = Date.now();
  const cooling = resources.map((r) => cooldowns[r.id]).filter((c) => isCooling(c, now));
  // Failures no cooldown follows (every target refused the input as too long): the last one says why.
  if (cooling.length === 0) return last;
  const retryAfter = Math.max(1, Math.ceil((Math.min(...cooling.map((c) => c.until)) - now) / 1000));
  if (cooling.length === resources.length && cooling.every((c) => c.reason === 'throttled')) {
    return new TooManyRequests(`Every target of route '${route.name}' is throttled`, retryAfter, { code: 'rate_limit_exceeded' });
  }
  return new ServiceUnavailable(`No target of route '${route.name}' can answer now: each is cooling down or has failed`, retryAfter, {
    code: 'route_unavailable',
  });
}
