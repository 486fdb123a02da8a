import { keyEndpoint } from '../../lib/http/key-endpoint';
import { answerEmbeddings } from '../../lib/gateway/embeddings';
import { lookUpModel } from '../../lib/calls/resolve';
import { EmbeddingsBody } from '../../generated/checks/gateway';

/** POST /v1/embeddings: OpenAI's embeddings on a deployed embedding model, priced per input token, within budget. */
export const handler = keyEndpoint({ body: EmbeddingsBody, prefetch: lookUpModel }, answerEmbeddings);
