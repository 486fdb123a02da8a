import { hostedModelDetail } from '../../lib/catalogue/hosted';
import { endpoint } from '../../lib/http/endpoint';
import { ModelInfoPath } from '../../generated/checks/models';

/** GET /api/hosted/model-info/{modelId+} (docs/openapi.yaml hostedModelInfo, ModelInfo): the id keeps its slash, or arrives as %2F. */
export const handler = endpoint({ auth: 'user', path: ModelInfoPath, platformFailures: 502 }, async ({ path }) => hostedModelDetail(path.modelId));
