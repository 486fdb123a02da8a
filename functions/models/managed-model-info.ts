import { managedModelDetail } from '../../lib/catalogue/managed';
import { endpoint } from '../../lib/http/endpoint';
import { ModelInfoPath } from '../../generated/checks/models';

/** GET /api/managed/model-info/{modelId} (docs/openapi.yaml managedModelInfo; docs/openapi.yaml ModelInfo): modelInfo, systemPrompt, usage. */
export const handler = endpoint({ auth: 'user', path: ModelInfoPath, platformFailures: 502 }, async ({ path }) => managedModelDetail(path.modelId));
