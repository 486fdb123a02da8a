import * as openAiResponses from '../dialects/openai-responses';
import { chatCall, type GatewayInput } from './chat';

/** POST /v1/responses: OpenAI's Responses API, the stateless part of it (lib/dialects/openai-responses.ts), streamed or not. */
export const answerResponse = (input: GatewayInput<openAiResponses.ResponsesBody>) =>
  chatCall<openAiResponses.ResponsesBody, openAiResponses.ResponsesCall>(openAiResponses, input);
