import { endpoint } from '../../lib/http/endpoint';
import { currentUsage } from '../../lib/usage/service';
import { UsageQuery } from '../../generated/checks/usage';

/** GET /api/usage/current (docs/openapi.yaml currentUsage): mtd and last24h of a conversation, the caller, a key, a team, or (admins, scope=all) the service. */
export const handler = endpoint({ auth: 'user', query: UsageQuery }, async ({ query, user }) => currentUsage(user, query));
