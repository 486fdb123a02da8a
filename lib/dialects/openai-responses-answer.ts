/** The Responses API's `response` object and its output items, as answered and as a stream builds them up. */
import type { ChatReply, FinishReason, ToolCall } from '../platforms/types';
import { answeredTier, compactId, promptTokens, reasoningText, reasoningTokensOf, replyFinish } from './common';
import type { ResponseEcho, ResponsesCall, Status } from './openai-responses-request';
import type { CallMeta, Settled } from './types';
// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/** The Responses API's id of a call: `resp_` and the call id. */
export const responseId = (meta: CallMeta) => `resp_${compactId(meta.id)}`;
export const messageItemId = (meta: CallMeta, outputIndex: number) => `msg_${compactId(meta.id)}_${outputIndex}`;
export const callItemId = (meta: CallMeta, outputIndex: number) => `fc_${compactId(meta.id)}_${outputIndex}`;

export type OutputItem = Record<string, unknown>;

export const textPart = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

export const messageItem = (id: string, text: string, status: Status): OutputItem => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: [textPart(text)],
});

export const reasoningItem = (id: string, text: string): OutputItem => ({
  id,
  type: 'reasoning',
  summary: [],
  content: [{ type: 'reasoning_text', text }],
});
/** The id of a response's reasoning item. */
export const reasoningItemId = (meta: CallMeta) => `rs_${compactId(meta.id)}`;

export const callItem = (id: string, call: ToolCall, status: Status): OutputItem => ({
  id,
  type: 'function_call',
  status,
  call_id: call.id,
  name: call.name,
  arguments: call.arguments,
});

/** How a reply ended, in the Responses API's terms: completed, or incomplete and why. */
export function ending(finish: FinishReason): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The Responses API counts the whole prompt as input, the cache reads among it in input_tokens_details. */
export const usageOf = (settled: Settled, reasoning = '') => {
  const { cached, prompt } = promptTokens(settled);
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: settled.tokensOut,
    output_tokens_details: { reasoning_tokens: Math.min(settled.tokensOut, reasoningTokensOf(reasoning)) },
    total_tokens: prompt + settled.tokensOut,
  };
};

export interface ResponseState {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  output: OutputItem[];
  usage: Record<string, unknown> | null;
  error?: { code: string; message: string };
  incomplete_details?: { reason: string } | null;
  /** The call as settled, once it is: the response then names the tier that served it. */
  settled?: Settled;
}

export function responseObject(meta: CallMeta, echo: ResponseEcho, state: ResponseState) {
  return {
    id: responseId(meta),
    object: 'response',
    created_at: meta.created,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: meta.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    reasoning: echo.reasoning,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: 'disabled',
    service_tier: state.settled ? answeredTier(state.settled) : echo.service_tier,
    usage: state.usage,
    ...(echo.user !== undefined && { user: echo.user }),
    metadata: echo.metadata,
  };
}

/** The `response` of a reply that is not streamed. */
export function answer(reply: ChatReply, settled: Settled, meta: CallMeta, call: Pick<ResponsesCall, 'echo'>) {
  const { status, incomplete_details } = ending(replyFinish(reply));
  const calls = reply.toolCalls ?? [];
  // A message when there is text, or nothing else to show; the last item ends as the reply did, as streamed.
  const parts: ((status: Status) => OutputItem)[] = [];
  // The model's reasoning first, as a reasoning item (redacted reasoning has no readable text).
  const reasoning = reasoningText(reply.reasoning);
  if (reasoning) parts.push(() => reasoningItem(reasoningItemId(meta), reasoning));
  if (reply.content || calls.length === 0) parts.push((s) => messageItem(messageItemId(meta, 0), reply.content, s));
  for (const c of calls) {
    const index = parts.length;
    parts.push((s) => callItem(callItemId(meta, index), c, s));
  }
  const output = parts.map((item, i) => item(i === parts.length - 1 && status === 'incomplete' ? 'incomplete' : 'completed'));
  return responseObject(meta, call.echo, { status, output, usage: usageOf(settled, reasoning), incomplete_details, settled });
}
