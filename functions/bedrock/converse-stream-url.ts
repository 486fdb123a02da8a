import { keyEndpoint } from '../../lib/http/key-endpoint';
import { streamConverse, streamModelId } from '../../lib/gateway/converse';
import { ConverseBody } from '../../generated/checks/bedrock';

/**
 * POST /bedrock/model/{modelId}/converse-stream behind its Lambda function URL (RESPONSE_STREAM), which
 * CloudFront routes it to: AWS's event stream sent as the model writes. A function URL has no path
 * parameters: the model is read from the path.
 */
export const handler = keyEndpoint({ body: ConverseBody, dialect: 'bedrock', streaming: true }, (request) =>
  streamConverse(request, streamModelId(request.event.rawPath)),
);
