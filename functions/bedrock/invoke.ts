import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerInvoke } from '../../lib/gateway/invoke';
import { ConversePath, InvokeBody } from '../../generated/checks/bedrock';

/** POST /bedrock/model/{modelId}/invoke: Bedrock's InvokeModel with Claude's body (what Claude Code sends in Bedrock mode), Bedrock's errors. */
export const handler = keyEndpoint({ body: InvokeBody, path: ConversePath, dialect: 'bedrock' }, (request) =>
  answerInvoke(request, request.path.modelId),
);
