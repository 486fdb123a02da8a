import { keyEndpoint } from '../../lib/http/key-endpoint';
import { streamInvoke } from '../../lib/gateway/invoke';
import { ConversePath, InvokeBody } from '../../generated/checks/bedrock';

/** POST /bedrock/model/{modelId}/invoke-with-response-stream on the HTTP API: the event stream sent whole, once the model has finished. */
export const handler = keyEndpoint({ body: InvokeBody, path: ConversePath, dialect: 'bedrock' }, (request) =>
  streamInvoke(request, request.path.modelId),
);
