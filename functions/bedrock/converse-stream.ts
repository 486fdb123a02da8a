import { keyEndpoint } from '../../lib/http/key-endpoint';
import { streamConverse } from '../../lib/gateway/converse';
import { ConverseBody, ConversePath } from '../../generated/checks/bedrock';

/** POST /bedrock/model/{modelId}/converse-stream on the HTTP API: the event stream sent whole, once the model has finished. */
export const handler = keyEndpoint({ body: ConverseBody, path: ConversePath, dialect: 'bedrock' }, (request) =>
  streamConverse(request, request.path.modelId),
);
