import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerConverse } from '../../lib/gateway/converse';
import { ConverseBody, ConversePath } from '../../generated/checks/bedrock';

/** POST /bedrock/model/{modelId}/converse: Bedrock's Converse, the key as a bearer token, Bedrock's errors. */
export const handler = keyEndpoint({ body: ConverseBody, path: ConversePath, dialect: 'bedrock' }, (request) =>
  answerConverse(request, request.path.modelId),
);
