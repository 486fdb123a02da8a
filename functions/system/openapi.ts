import { publicEndpoint } from '../../lib/http/public-endpoint';
import document from '../../generated/openapi.json' with { type: 'json' };

/**
 * GET /api/openapi.json (public): the API contract, generated from docs/openapi.yaml by
 * `npm run generate` and bundled into the function, so the document served is the one tested.
 */
export const handler = publicEndpoint({ bare: true }, async () => document);
