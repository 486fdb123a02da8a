import * as anthropicMessages from '../dialects/anthropic-messages';
import { chatCall, type GatewayInput } from './chat';

/** POST /v1/messages: Anthropic's Messages API (lib/dialects/anthropic-messages.ts), streamed or not, with Anthropic's errors. */
export const answerMessage = (input: GatewayInput<anthropicMessages.MessagesBody>) =>
  chatCall<anthropicMessages.MessagesBody, anthropicMessages.MessagesCall>(messagesDialect, input);

/** The dialect, with the end user a request names: `metadata.user_id`. */
const messagesDialect = {
  ...anthropicMessages,
  endUser: (body: anthropicMessages.MessagesBody) => ({ value: body.metadata?.user_id, param: 'metadata.user_id' }),
};
