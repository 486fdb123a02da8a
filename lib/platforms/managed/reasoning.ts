/**
 * Reasoning, betas and top_k on Converse: what goes in `additionalModelRequestFields` (the model's own
 * request fields) and how reasoning blocks travel both ways (AWS's "Enhance model responses with model
 * reasoning"; the SDK's ReasoningContentBlock and ReasoningContentBlockDelta).
 *
 * - Claude (features.ts `budget`, `adaptive`): `thinking: {type: enabled, budget_tokens}`, or
 *   `{type: adaptive}` where the model has it. An effort (OpenAI's reasoning_effort) becomes a budget
 *   (EFFORT_BUDGET), kept below maxTokens as Claude requires. Thinking takes no temperature but 1, no
 *   top_k and no forced tool call (so no JSON answer by a forced tool): refused here, before the call.
 * - gpt-oss (`effort`): `reasoning_effort`; a budget becomes the effort that covers it.
 * - DeepSeek-R1 (`always`): nothing to send; it reasons by itself.
 * - `anthropic_beta` carries the betas (already those the model takes), `top_k` Claude's top_k.
 * Reasoning of earlier turns goes back as `reasoningContent` blocks ahead of the turn's text, for the
 * models that reason (another model would refuse the block); redacted reasoning as its bytes.
 */
import type { ContentBlock, ContentBlockDelta, ReasoningContentBlock } from '@aws-sdk/client-bedrock-runtime';
import type { DocumentType } from '@smithy/types';
import { BadRequest } from '../../errors';
import { EFFORT_BUDGET, MIN_THINKING_BUDGET, type ChatRequest, type ChatStreamEvent, type ChatTurn, type ReasoningBlock } from '../types';
import { managedReasoning } from './features';

/** The effort whose budget covers `tokens` (gpt-oss takes an effort, not a budget). */
const effortOf = (tokens: number): 'low' | 'medium' | 'high' =>
  tokens <= EFFORT_BUDGET.low ? 'low' : tokens <= EFFORT_BUDGET.medium ? 'medium' : 'high';

/** The thinking budget Claude gets for a request: the one asked for, else its effort's, below maxTokens. */
function claudeBudget(request: ChatRequest): number {
  const reasoning = request.reasoning ?? {};
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens;
  const wanted = EFFORT_BUDGET[reasoning.effort ?? 'medium'];
  const budget = request.maxTokens === undefined || reasoning.interleaved ? wanted : Math.min(wanted, request.maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) {
    throw new BadRequest(
      `Reasoning on "${request.target}" needs a token budget of at least ${MIN_THINKING_BUDGET}: raise the output bound above it`,
      {
        param: 'max_tokens',
      },
    );
  }
  return budget;
}

/** What thinking forbids on Claude, refused by name rather than sent to be refused by the platform. */
function checkThinkingCompatible(request: ChatRequest): void {
  const refuse = (param: string, why: string) => new BadRequest(`Reasoning (thinking) on "${request.target}" ${why}`, { param });
  if (request.temperature !== undefined && request.temperature !== 1) throw refuse('temperature', 'takes no temperature other than 1');
  if (request.topK !== undefined) throw refuse('top_k', 'takes no top_k');
  if (request.outputFormat || request.toolChoice === 'required' || typeof request.toolChoice === 'object')
    throw refuse(
      request.outputFormat ? 'output_config.format' : 'tool_choice',
      'cannot be combined with a forced tool call (tool_choice any or tool, or a JSON answer)',
    );
}

/** The model's own request fields for a call (undefined when it needs none). */
export function modelRequestFields(request: ChatRequest): DocumentType | undefined {
  const style = managedReasoning(request.model ?? request.target);
  const fields: Record<string, DocumentType> = {};
  const reasoning = request.reasoning;
  if (reasoning && (style === 'budget' || style === 'adaptive')) {
    checkThinkingCompatible(request);
    fields.thinking = reasoning.adaptive && style === 'adaptive' ? { type: 'adaptive' } : { type: 'enabled', budget_tokens: claudeBudget(request) };
  } else if (reasoning && style === 'effort') {
    fields.reasoning_effort = reasoning.effort ?? effortOf(reasoning.budgetTokens ?? EFFORT_BUDGET.medium);
  }
  if (request.topK !== undefined) fields.top_k = request.topK;
  if (request.betas?.length) fields.anthropic_beta = request.betas;
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** The turns as the model takes them: reasoning of earlier turns only to a model that reasons. */
export function turnsFor(request: ChatRequest): ChatTurn[] {
  if (managedReasoning(request.model ?? request.target)) return request.messages;
  return request.messages.map((turn) => (turn.role === 'assistant' && turn.reasoning ? { ...turn, reasoning: undefined } : turn));
}

/** An earlier turn's reasoning as Converse blocks, unchanged (a signature is checked against its text). */
export const reasoningBlocks = (reasoning: ReasoningBlock[] | undefined): ContentBlock[] =>
  (reasoning ?? []).map((block): ContentBlock => ({
    reasoningContent:
      block.type === 'redacted'
        ? { redactedContent: Buffer.from(block.data, 'base64') }
        : { reasoningText: { text: block.text, ...(block.signature && { signature: block.signature }) } },
  }));

/** An answer's reasoning block in the canonical form. */
export function readReasoningBlock(block: ReasoningContentBlock): ReasoningBlock | undefined {
  if (block.redactedContent) return { type: 'redacted', data: Buffer.from(block.redactedContent).toString('base64') };
  if (block.reasoningText) return { type: 'thinking', text: block.reasoningText.text ?? '', signature: block.reasoningText.signature ?? '' };
  return undefined;
}

/** A ConverseStream reasoning delta as the stream's event. */
export function reasoningEvent(delta: NonNullable<ContentBlockDelta['reasoningContent']>): ChatStreamEvent | undefined {
  if (delta.redactedContent) return { kind: 'reasoning_redacted', data: Buffer.from(delta.redactedContent).toString('base64') };
  if (delta.signature) return { kind: 'reasoning_signature', signature: delta.signature };
  if (delta.text) return { kind: 'reasoning', text: delta.text };
  return undefined;
}

/** A whole answer's reasoning as the events a stream would have had. */
export const reasoningEvents = (reasoning: ReasoningBlock[] | undefined): ChatStreamEvent[] =>
  (reasoning ?? []).flatMap((block): ChatStreamEvent[] =>
    block.type === 'redacted'
      ? [{ kind: 'reasoning_redacted', data: block.data }]
      : [{ kind: 'reasoning', text: block.text }, ...(block.signature ? [{ kind: 'reasoning_signature' as const, signature: block.signature }] : [])],
  );

/**
 * Bedrock's refusal of what the caller sent the model (a ValidationException whose message is the
 * model's own: "The model returned the following errors: …", such as a thinking block whose signature
 * no longer matches its text) as the caller's 400 with the model's words, rather than a platform failure.
 */
export function rethrowModelRefusal(err: unknown): never {
  const e = err as { name?: string; message?: string } | undefined;
  const prefix = 'The model returned the following errors: ';
  if (e?.name !== 'ValidationException' || !e.message?.startsWith(prefix)) throw err;
  throw new BadRequest(`The model refused the request: ${e.message.slice(prefix.length)}`, { param: 'messages' });
}
