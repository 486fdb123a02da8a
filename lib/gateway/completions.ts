import * as openAiChat from '../dialects/openai-chat';
import { chatCall, type GatewayInput } from './chat';

/**
 * POST /v1/chat/completions: OpenAI's chat completion (tools, structured output, images; streamed or
 * not) on a deployed resource, priced, counted and within budget. Both of its functions answer with it
 * (the HTTP API route's, which sends a stream all at once, and the function URL's, which streams it).
 */
export const answerCompletion = (input: GatewayInput<openAiChat.OpenAiChatBody>) =>
  chatCall<openAiChat.OpenAiChatBody, openAiChat.OpenAiChatCall>(completionsDialect, input);

/** The dialect, with the end user a request names: OpenAI's `user`. */
const completionsDialect = { ...openAiChat, endUser: (body: openAiChat.OpenAiChatBody) => ({ value: body.user, param: 'user' }) };
