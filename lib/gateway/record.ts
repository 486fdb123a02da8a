import { flushMetrics } from '../../core/observability';
import { putPendingCall } from '../../tables/calls';
import { sessionScope } from '../../tables/usage';
import type { Route } from '../../tables/routes';
import { teamScopesOf } from '../calls/levels';
import { countCall, type MeteredCall, type Settlement } from '../calls/metered';
import type { Attribution } from './attribution';

/**
 * What a /v1 call stores: nothing of the client's data (an OpenAI-compatible gateway is a pipe its
 * clients' data passes through), only the call itself, in ONE write on the critical path: the
 * pending call item (tables/calls.ts), settled from the table's stream into the key's call log, the
 * user's and the key's usage and the budgets' spend. `streamed`: a stream's settle runs after the
 * stack's logMetrics published the invocation's metrics (when the handler returned the stream), so it
 * publishes its own. A call through a route names it
 * beside the resource that answered. A call of a client's session (lib/gateway/attribution.ts) names it
 * and counts in that session's usage too.
 */
export async function recordGatewayCall(
  call: MeteredCall,
  settlement: Settlement,
  requestId: string,
  streamed = false,
  route?: Pick<Route, 'id' | 'name'>,
  attribution: Attribution = {},
): Promise<void> {
  const key = call.payer.key;
  if (!key) throw new Error('recordGatewayCall: a gateway call always has its API key');
  const userId = call.payer.user.id;
  await putPendingCall({
    ...settlement,
    requestId,
    userId,
    keyId: key.id,
    ...(settlement.cache?.read && { cachedTokens: settlement.cache.read }),
    resource: { id: call.resource.id, type: call.resource.type },
    ...(route && { route: { id: route.id, name: route.name } }),
    ...attribution,
    scopes: [
      { kind: 'user', id: userId },
      { kind: 'key', id: key.id },
      ...teamScopesOf(call.payer),
      ...(attribution.session !== undefined ? [sessionScope(userId, attribution.session)] : []),
    ],
  });
  countCall(call, settlement, 'GatewayCalls');
  if (streamed) flushMetrics();
}
