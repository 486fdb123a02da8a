/**
 * OpenAI's Responses API (POST /v1/responses) as the canonical model call, and back. It is where the
 * Vercel AI SDK's OpenAI provider sends generateText and streamText by default.
 *
 * Stored responses: the dialect itself is pure. lib/gateway/responses.ts keeps a response (`store`,
 * true unless the request says false, echoed in the answer) with the conversation it ended, and hands
 * `parse` the stored conversation that `previous_response_id` names: its turns come first, the new
 * input after them, and the answer names it (`previous_response_id`). `instructions` are not carried
 * over, as in OpenAI's API. `conversation` objects and `item_reference` items are refused with a 400
 * that says what to send instead (the items themselves, or previous_response_id). (With the Vercel AI
 * SDK, whose store-on default sends earlier assistant messages as item references, that is
 * `providerOptions: { openai: { store: false } }` or `previousResponseId`.)
 *
 * Read: `input` is a string (one user message) or items: messages (roles user, assistant, system,
 * developer; `input_text`, `input_image` with a base64 `data:` URL, `output_text`, `refusal`),
 * `function_call` items (an assistant message and the calls after it are one assistant turn) and
 * `function_call_output` items (the results). `instructions` and system/developer messages become the
 * system prompt. Function `tools` (the flat shape), `tool_choice`, `parallel_tool_calls`,
 * `text.format` (json_object, json_schema), `max_output_tokens`, `temperature` and `top_p` map onto
 * the canonical request; `user` is recorded with the call (lib/gateway/attribution.ts); `metadata`,
 * `include` and `stream_options` are accepted and change nothing (nothing the service produces is
 * includable).
 *
 * Written: the `response` object with its `output` items (a `message` with `output_text`, then a
 * `function_call` item per call) and `usage`; status `incomplete` with `incomplete_details` when the
 * model hit max_output_tokens or a content filter. Streamed: the Responses events, each numbered
 * (`sequence_number`): response.created, response.in_progress, per item output_item.added, (reasoning)
 * content_part.added, reasoning_text.delta…, reasoning_text.done, content_part.done, (text)
 * content_part.added, output_text.delta…, output_text.done, content_part.done, (call)
 * function_call_arguments.delta…, function_call_arguments.done, then output_item.done, and last
 * response.completed (or response.incomplete) with the whole response, its usage and the call's
 * `cost_usd`. A failure mid-stream ends it with response.failed, whose `response.error` says why; the
 * Responses API sends no [DONE].
 */
import type { FeatureFields } from '../calls/metered';

// The dialect's three seams, each its own module: the request read, the answer written, the event stream.
export { parse, type Conversation, type ResponsesBody, type ResponsesCall } from './openai-responses-request';
export { answer } from './openai-responses-answer';
export { frames } from './openai-responses-stream';
/** The fields of the features a model may lack, as the Responses API names them (the refusal's `param`). */
export const fields: FeatureFields = { tools: 'tools', outputFormat: 'text.format', outputSchema: 'text.format.schema', images: 'input' };
