import { listDedicatedModels } from '../../lib/catalogue/dedicated';
import { originHeaders } from '../../lib/catalogue/cache';
import { endpoint, reply } from '../../lib/http/endpoint';
import { DedicatedModelsQuery } from '../../generated/checks/models';

/** GET /api/models/dedicated (docs/openapi.yaml listDedicatedModels): public hub and/or account model packages, newest first. */
export const handler = endpoint({ auth: 'user', query: DedicatedModelsQuery, platformFailures: 502 }, async ({ query }) => {
  const { region, source, models, ...origin } = await listDedicatedModels({
    search: query.search,
    max: Number(query.max),
    source: query.source,
  });
  return reply(200, { region, source, models }, originHeaders(origin));
});
