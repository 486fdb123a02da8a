import { listHostedModels } from '../../lib/catalogue/hosted';
import { originHeaders } from '../../lib/catalogue/cache';
import { endpoint, reply } from '../../lib/http/endpoint';
import { HostedModelsQuery } from '../../generated/checks/models';

/** GET /api/models/hosted (docs/openapi.yaml listHostedModels); debug=1 adds the platform's raw answer as `raw`. */
export const handler = endpoint({ auth: 'user', query: HostedModelsQuery, platformFailures: 502 }, async ({ query }) => {
  const { models, raw, ...origin } = await listHostedModels({ debug: query.debug });
  return reply(200, { provider: 'hosted', models, ...(query.debug ? { raw } : {}) }, originHeaders(origin));
});
