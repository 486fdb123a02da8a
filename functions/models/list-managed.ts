import { listManagedModels } from '../../lib/catalogue/managed';
import { originHeaders } from '../../lib/catalogue/cache';
import { endpoint, reply } from '../../lib/http/endpoint';

/** GET /api/models/managed (docs/openapi.yaml listManagedModels): the managed platform's foundation models. */
export const handler = endpoint({ auth: 'user', platformFailures: 502 }, async () => {
  const { region, models, ...origin } = await listManagedModels();
  return reply(200, { region, models }, originHeaders(origin));
});
