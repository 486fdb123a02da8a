import { keyEndpoint } from '../../lib/http/key-endpoint';
import { countDoorTokens } from '../../lib/gateway/invoke';
import { ConversePath, CountTokensBody } from '../../generated/checks/bedrock';

/** POST /bedrock/model/{modelId}/count-tokens: Bedrock's CountTokens, free and rate-limited, Bedrock's errors. */
export const handler = keyEndpoint({ body: CountTokensBody, path: ConversePath, dialect: 'bedrock' }, (request) =>
  countDoorTokens(request, request.path.modelId),
);
