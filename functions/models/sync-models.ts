import { syncModels } from '../../lib/catalogue/sync';
import { auditedEndpoint } from '../../lib/http/endpoint';

/** POST /api/admin/sync-models (docs/openapi.yaml syncModels; admin): refresh every platform's cached catalogue and report the changes. */
export const handler = auditedEndpoint({ auth: 'admin', audit: { action: 'models.sync', target: () => 'catalogues' } }, async () => syncModels());
