import { keyEndpoint } from '../../lib/http/key-endpoint';
import { streamModelId } from '../../lib/gateway/converse';
import { streamInvoke } from '../../lib/gateway/invoke';
import { InvokeBody } from '../../generated/checks/bedrock';

/**
 * POST /bedrock/model/{modelId}/invoke-with-response-stream behind its Lambda function URL
 * (RESPONSE_STREAM), which CloudFront routes it to: AWS's event stream sent as the model writes. A
 * function URL has no path parameters: the model is read from the path.
 */
export const handler = keyEndpoint({ body: InvokeBody, dialect: 'bedrock', streaming: true }, (request) =>
  streamInvoke(request, streamModelId(request.event.rawPath, 'invoke-with-response-stream')),
);
