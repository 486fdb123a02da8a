import * as anthropicMessages from '../dialects/anthropic-messages';
import { chatCall, type GatewayInput } from './chat';

/** POST /v1/messages: Anthropic's Messages API (lib/dialects/anthropic-messages.ts), streamed or not, with Anthropic's errors. */
export const answerMessage = (input: GatewayInput<anthropicMessages.MessagesBody>) =>
  chatCall<anthropicMessages.MessagesBody, anthropicMessages.MessagesCall>(anthropicMessages, input);
