import { keyEndpoint } from '../../lib/http/key-endpoint';
import { countDoorTokens } from '../../lib/gateway/invoke';
import { validator } from '../../lib/http/validation';
import { ConversePath, CountTokensBody, InvokeBody } from '../../generated/checks/bedrock';

/** An InvokeModel body sent for counting is checked as /invoke checks its body. */
const invokeBody = validator(InvokeBody, 'body');

/** POST /bedrock/model/{modelId}/count-tokens: Bedrock's CountTokens, free and rate-limited, Bedrock's errors. */
export const handler = keyEndpoint({ body: CountTokensBody, path: ConversePath, dialect: 'bedrock' }, (request) =>
  countDoorTokens(request, request.path.modelId, (value) => invokeBody.parse(value)),
);
